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

    public CrashingFileSystem(MemoryFileSystem inner) => Inner = inner;

    public MemoryFileSystem Inner { get; }

    /// <summary>True once a change was refused.</summary>
    public bool HasCrashed { get; private set; }

    public bool IsInMemory => true;

    /// <summary>Lets <paramref name="changes"/> more changes through, then fails the rest.</summary>
    public void CrashAfter(int changes)
    {
        _changesLeft = changes;
        HasCrashed = false;
    }

    /// <summary>Lets every change through again.</summary>
    public void Disarm()
    {
        _changesLeft = -1;
        HasCrashed = false;
    }

    /// <summary>Runs before each change with its description (tests use it to hold a write back).</summary>
    public Action<string>? OnChange { get; set; }

    /// <summary>Called before each change; throws where the simulated process has died.</summary>
    public void BeforeChange(string what)
    {
        OnChange?.Invoke(what);
        if (_changesLeft < 0) return;
        if (_changesLeft == 0 || HasCrashed)
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
