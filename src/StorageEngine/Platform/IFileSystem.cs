namespace StorageEngine.Platform;

/// <summary>
/// The seam between the engine and the operating system's files. The engine does all file work
/// through it so that tests can substitute an in-memory file system that simulates power loss,
/// or wrap the real one to inject faults.
/// </summary>
internal interface IFileSystem
{
    /// <summary>True when files live only in memory (no durability across processes).</summary>
    bool IsInMemory { get; }

    /// <summary>Opens the file, creating it (empty) if it does not exist.</summary>
    IStorageFile Open(string path, StorageFileMode mode);

    bool Exists(string path);

    void Delete(string path);

    /// <summary>Atomically renames <paramref name="from"/> to <paramref name="to"/>, replacing it.</summary>
    void Rename(string from, string to);

    /// <summary>Names (not paths) of the files in <paramref name="directory"/>.</summary>
    IReadOnlyList<string> ListFiles(string directory);

    void CreateDirectory(string path);

    /// <summary>
    /// Takes an exclusive lock on the environment (one process at a time). Throws
    /// <see cref="EnvironmentLockedException"/> when another process or environment holds it.
    /// </summary>
    IDisposable AcquireLock(string lockFilePath);

    /// <summary>
    /// Takes a shared lock on the environment for a read-only open: several shared holders at once, none beside
    /// an exclusive one. File systems that cannot share a lock take it exclusively (this default).
    /// </summary>
    IDisposable AcquireSharedLock(string lockFilePath) => AcquireLock(lockFilePath);
}
