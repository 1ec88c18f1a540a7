using StorageEngine.Platform;

namespace StorageEngine.Tests.Faults;

/// <summary>
/// Wraps a file system (a <see cref="MemoryFileSystem"/> when power loss is to follow, or the real one) and
/// counts every write, sync, growth, read and directory change; an armed <see cref="Fault"/> makes one of
/// them fail the way a disk or kernel does: EIO, a short write, bytes that landed before EIO, ENOSPC, or the
/// process dying mid-call. Thread-safe: the checkpointer thread calls it too.
/// </summary>
internal sealed class FaultyFileSystem : IFileSystem
{
    private long _dataFileBytesWritten;
    private long _journalBytesPreallocated;

    /// <summary>EIO and ENOSPC, which .NET on Linux reports as the HResult of an IOException.</summary>
    public const int EIO = 5;
    public const int ENOSPC = 28;

    private readonly object _sync = new();
    private readonly int[] _counts = new int[Enum.GetValues<FileOperation>().Length];
    private Fault? _fault;
    private int _matched;
    private bool _stuck;
    private (Func<string, bool> Files, long Offset, int Length)? _poison;

    /// <param name="inner">The file system the calls go to.</param>
    /// <param name="bufferedJournal">
    /// Open write-through files buffered instead and say so (IsWriteThrough false), as the OS file system does
    /// where O_DIRECT is refused (tmpfs): the journal then syncs after every record, and those syncs can fail.
    /// </param>
    /// <param name="seed">Decides what lands of a call the process dies in.</param>
    public FaultyFileSystem(IFileSystem inner, bool bufferedJournal = false, int seed = 0)
    {
        Inner = inner;
        BufferedJournal = bufferedJournal;
        Random = new Random(seed);
    }

    public IFileSystem Inner { get; }

    /// <summary>The inner file system as a memory one, for power loss.</summary>
    public MemoryFileSystem Memory => (MemoryFileSystem)Inner;

    public bool BufferedJournal { get; }

    public bool IsInMemory => Inner.IsInMemory;

    /// <summary>Decides partial landings; seeded, so a failing case replays exactly.</summary>
    public Random Random { get; }

    /// <summary>Faults that fired since creation (a sticky fault counts every call it failed).</summary>
    public int FaultsInjected { get; private set; }

    /// <summary>True once the armed fault fired.</summary>
    public bool HasFired { get; private set; }

    /// <summary>True once a <see cref="FaultKind.Crash"/> fired: every change fails until <see cref="Revive"/>.</summary>
    public bool HasCrashed { get; private set; }

    /// <summary>What the last fault hit, for failure messages.</summary>
    public string? LastFault { get; private set; }

    /// <summary>Calls of <paramref name="operation"/> since creation or <see cref="ResetCounts"/>.</summary>
    public int Count(FileOperation operation)
    {
        lock (_sync) return _counts[(int)operation];
    }

    /// <summary>Bytes written whole to the data file (writes a fault cut short not counted).</summary>
    public long DataFileBytesWritten => Interlocked.Read(ref _dataFileBytesWritten);

    /// <summary>Bytes of zeros preallocated in journal files since creation or <see cref="ResetCounts"/>.</summary>
    public long JournalBytesPreallocated => Interlocked.Read(ref _journalBytesPreallocated);

    /// <summary>Counts a preallocation that went through.</summary>
    public void CountPreallocated(string path, long bytes)
    {
        if (bytes > 0 && Fault.JournalFile(path)) Interlocked.Add(ref _journalBytesPreallocated, bytes);
    }

    /// <summary>Counts a write that went through.</summary>
    public void CountWritten(string path, long bytes)
    {
        if (Fault.DataFile(path)) Interlocked.Add(ref _dataFileBytesWritten, bytes);
    }

    public void ResetCounts()
    {
        lock (_sync) Array.Clear(_counts);
        Interlocked.Exchange(ref _journalBytesPreallocated, 0);
    }

    /// <summary>Plans <paramref name="fault"/>; its count starts now.</summary>
    public void Arm(Fault fault)
    {
        lock (_sync)
        {
            _fault = fault;
            _matched = 0;
            _stuck = false;
            HasFired = false;
        }
    }

    /// <summary>Removes the fault (the disk has space again, the bad sector was remapped); a crash stays until revived.</summary>
    public void Clear()
    {
        lock (_sync)
        {
            _fault = null;
            _stuck = false;
        }
    }

    /// <summary>Simulates the power loss that follows a crash on the inner memory file system, and lets calls through again.</summary>
    public void LosePower(Random random, bool tearWrites = true, bool reorderWrites = false, bool scatterTears = false)
    {
        Memory.SimulatePowerLoss(random, tearWrites, reorderWrites, scatterTears);
        Revive();
    }

    /// <summary>Lets changes through again after a crash (the test has already crashed the environment).</summary>
    public void Revive()
    {
        lock (_sync)
        {
            HasCrashed = false;
            _fault = null;
            _stuck = false;
        }
    }

    /// <summary>
    /// Makes mappings of matching files show garbage in [offset, offset + length), as if that part of the
    /// device could not be read back: reads through the mapping see damage where a real one would fault.
    /// </summary>
    /// <summary>
    /// Called on the calling thread before each operation, outside any lock: a test can hold one thread at a
    /// chosen write while others go on.
    /// </summary>
    public Action<FileOperation, string>? BeforeOperation { get; set; }

    public void PoisonMappedPage(Func<string, bool> files, long offset, int length)
    {
        lock (_sync) _poison = (files, offset, length);
    }

    public IStorageFile Open(string path, StorageFileMode mode)
    {
        if ((mode & StorageFileMode.Existing) == 0 && !Inner.Exists(path)) ThrowIfFaulted(FileOperation.DirectoryChange, path, out _);
        bool writeThrough = (mode & StorageFileMode.UnbufferedWriteThrough) != 0;
        var inner = Inner.Open(path, BufferedJournal && writeThrough ? StorageFileMode.Buffered : mode);
        return new FaultyStorageFile(this, inner, reportWriteThrough: BufferedJournal ? false : null);
    }

    public bool Exists(string path) => Inner.Exists(path);

    public void Delete(string path)
    {
        ThrowIfFaulted(FileOperation.DirectoryChange, path, out _);
        Inner.Delete(path);
    }

    public void Rename(string from, string to)
    {
        ThrowIfFaulted(FileOperation.DirectoryChange, from, out _);
        Inner.Rename(from, to);
    }

    public IReadOnlyList<string> ListFiles(string directory) => Inner.ListFiles(directory);

    public void CreateDirectory(string path) => Inner.CreateDirectory(path);

    public IDisposable AcquireLock(string lockFilePath) => Inner.AcquireLock(lockFilePath);

    public IDisposable AcquireSharedLock(string lockFilePath) => Inner.AcquireSharedLock(lockFilePath);

    /// <summary>
    /// Counts the call and returns the fault it must suffer, or null to let it through. Throws for faults that
    /// leave nothing to do (a refused sync or directory change, any change after a crash).
    /// </summary>
    public FaultKind? Enter(FileOperation operation, string path)
    {
        BeforeOperation?.Invoke(operation, path);
        lock (_sync)
        {
            if (HasCrashed && operation != FileOperation.Read) throw Crashed(operation, path);
            _counts[(int)operation]++;
            if (_fault is not { } fault || fault.Operation != operation || (fault.Files is not null && !fault.Files(path))) return null;
            if (!_stuck)
            {
                if (HasFired || ++_matched != fault.Nth) return null;
                HasFired = true;
                _stuck = fault.Sticky;
            }
            FaultsInjected++;
            LastFault = $"{fault.Kind} at {operation} #{_counts[(int)operation]} ({Path.GetFileName(path)})";
            if (fault.Kind == FaultKind.Crash) HasCrashed = true;
            return fault.Kind;
        }
    }

    /// <summary>For calls that either happen whole or not at all: throws the fault, if any.</summary>
    public void ThrowIfFaulted(FileOperation operation, string path, out FaultKind? kind)
    {
        kind = Enter(operation, path);
        if (kind is not null) throw Failure(kind.Value, operation, path);
    }

    /// <summary>The exception a faulted call throws.</summary>
    public static IOException Failure(FaultKind kind, FileOperation operation, string path) => kind switch
    {
        FaultKind.DiskFull => new IOException($"No space left on device : '{path}' (injected fault, {operation})", ENOSPC),
        FaultKind.Crash => Crashed(operation, path),
        _ => new IOException($"Input/output error : '{path}' (injected fault, {operation})", EIO),
    };

    /// <summary>The mapping, damaged where <see cref="PoisonMappedPage"/> says.</summary>
    public IMappedView Map(IStorageFile inner, long length)
    {
        (Func<string, bool> Files, long Offset, int Length)? poison;
        lock (_sync) poison = _poison;
        var view = inner.Map(length);
        if (poison is not { } p || !p.Files(inner.Path) || p.Offset >= length) return view;
        using (view) return new PoisonedMappedView(view, p.Offset, (int)Math.Min(p.Length, length - p.Offset));
    }

    private static IOException Crashed(FileOperation operation, string path) =>
        new($"Simulated crash: the process died during or before {operation} on '{path}'.", EIO);
}
