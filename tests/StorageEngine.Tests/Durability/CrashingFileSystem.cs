using StorageEngine.Platform;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// Wraps a <see cref="MemoryFileSystem"/> and, once armed, lets a given number of file changes (writes, length
/// changes, syncs, renames, deletes) through and then fails every later one, as if the process died at that
/// point. The test then crashes the environment, simulates power loss on the inner file system and reopens on it.
/// </summary>
internal sealed class CrashingFileSystem : IFileSystem
{
    private int _changesLeft = -1;
    // When set, only this thread's changes count toward the crash point (see CrashAfter).
    private int _countingThread;

    public CrashingFileSystem(MemoryFileSystem inner) => Inner = inner;

    public MemoryFileSystem Inner { get; }

    /// <summary>True once a change was refused.</summary>
    public bool HasCrashed
    {
        get => _hasCrashed;
        private set => _hasCrashed = value;
    }

    // Read by every thread that changes a file.
    private volatile bool _hasCrashed;

    public bool IsInMemory => true;

    /// <summary>Lets <paramref name="changes"/> more changes through, then fails the rest.</summary>
    /// <param name="changes">How many changes pass before the simulated death.</param>
    /// <param name="countThisThreadOnly">
    /// Count only the calling thread's changes: the engine's own threads (the checkpointer preparing a spare
    /// journal file) may change files meanwhile, and a crash point they took would land outside the operation the
    /// test cuts short, by thread timing (a slow machine, qemu). Their changes before the crash go through, as they
    /// would have before a real death at that point; once it has crashed every change fails, whichever thread.
    /// </param>
    public void CrashAfter(int changes, bool countThisThreadOnly = false)
    {
        _countingThread = countThisThreadOnly ? Environment.CurrentManagedThreadId : 0;
        HasCrashed = false;
        Volatile.Write(ref _changesLeft, changes);
    }

    /// <summary>Lets every change through again.</summary>
    public void Disarm()
    {
        Volatile.Write(ref _changesLeft, -1);
        _countingThread = 0;
        HasCrashed = false;
    }

    /// <summary>Runs before each change with its description (tests use it to hold a write back).</summary>
    public Action<string>? OnChange { get; set; }

    /// <summary>Called before each change; throws where the simulated process has died.</summary>
    public void BeforeChange(string what)
    {
        OnChange?.Invoke(what);
        if (Volatile.Read(ref _changesLeft) < 0) return;
        if (HasCrashed) throw new IOException($"Simulated crash before {what}.");
        int counting = _countingThread;
        if (counting != 0 && counting != Environment.CurrentManagedThreadId) return;
        if (_changesLeft == 0)
        {
            HasCrashed = true;
            throw new IOException($"Simulated crash before {what}.");
        }
        _changesLeft--;
    }

    public IStorageFile Open(string path, StorageFileMode mode) => new CrashingStorageFile(this, Inner.Open(path, mode));

    public bool Exists(string path) => Inner.Exists(path);

    public void Delete(string path)
    {
        BeforeChange($"deleting {path}");
        Inner.Delete(path);
    }

    public void Rename(string from, string to)
    {
        BeforeChange($"renaming {from}");
        Inner.Rename(from, to);
    }

    public IReadOnlyList<string> ListFiles(string directory) => Inner.ListFiles(directory);

    public void CreateDirectory(string path) => Inner.CreateDirectory(path);

    public IDisposable AcquireLock(string lockFilePath) => Inner.AcquireLock(lockFilePath);
}
