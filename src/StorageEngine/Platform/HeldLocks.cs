namespace StorageEngine.Platform;

/// <summary>
/// The environment locks this process holds, so that a refused lock can say whether an environment of this
/// process holds it (one that was never disposed, or is not yet) rather than another process: the OS lock
/// alone cannot tell the two apart, and the advice differs.
/// </summary>
internal static class HeldLocks
{
    private static readonly object Sync = new();
    // Keyed by a class, not a tuple: a dictionary over a reference type runs the runtime's precompiled shared code,
    // one over a tuple of them was compiled in every process's first open.
    private static readonly Dictionary<LockKey, int> Held = new();

    /// <summary>Records a lock taken on <paramref name="lockFilePath"/>; the result releases the record.</summary>
    public static IDisposable Record(IFileSystem fileSystem, string lockFilePath)
    {
        var key = KeyOf(fileSystem, lockFilePath);
        lock (Sync) Held[key] = Held.GetValueOrDefault(key) + 1;
        return new Entry(key);
    }

    /// <summary>Whether an environment in this process holds the lock on <paramref name="lockFilePath"/>.</summary>
    public static bool IsHeld(IFileSystem fileSystem, string lockFilePath)
    {
        var key = KeyOf(fileSystem, lockFilePath);
        lock (Sync) return Held.ContainsKey(key);
    }

    // Every OsFileSystem instance sees the same files; a memory file system is its own world.
    private static LockKey KeyOf(IFileSystem fileSystem, string path)
    {
        string full = Path.GetFullPath(path);
        if (OperatingSystem.IsWindows() || OperatingSystem.IsMacOS()) full = full.ToUpperInvariant();
        return new LockKey(fileSystem is OsFileSystem ? typeof(OsFileSystem) : fileSystem, full);
    }

    private sealed record LockKey(object FileSystem, string Path);

    private static void Release(LockKey key)
    {
        lock (Sync)
        {
            int count = Held.GetValueOrDefault(key) - 1;
            if (count > 0) Held[key] = count;
            else Held.Remove(key);
        }
    }

    private sealed class Entry(LockKey key) : IDisposable
    {
        private int _released;

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _released, 1) == 0) Release(key);
        }
    }
}
