namespace StorageEngine.Platform;

/// <summary>An environment lock held in a <see cref="MemoryFileSystem"/>.</summary>
internal sealed class MemoryFileLock : IDisposable
{
    private MemoryFileSystem? _fileSystem;

    /// <summary>Creates the lock object; the file system has already registered it under <paramref name="key"/>.</summary>
    public MemoryFileLock(MemoryFileSystem fileSystem, string key)
    {
        _fileSystem = fileSystem;
        Key = key;
    }

    /// <summary>Normalized path of the lock file.</summary>
    public string Key { get; }

    /// <summary>Releases the lock, unless a simulated crash already did (and someone else may hold it now).</summary>
    public void Dispose() => Interlocked.Exchange(ref _fileSystem, null)?.ReleaseLock(this);
}
