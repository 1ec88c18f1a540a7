namespace StorageEngine.Platform;

/// <summary>An environment lock held through an open lock file; closing the file releases it.</summary>
internal sealed class OsFileLock : IDisposable
{
    private FileStream? _stream;

    /// <summary>Takes ownership of the locked stream.</summary>
    public OsFileLock(FileStream stream)
    {
        _stream = stream;
    }

    /// <summary>Releases the lock; the OS drops flock and sharing locks when the last handle closes.</summary>
    public void Dispose() => Interlocked.Exchange(ref _stream, null)?.Dispose();
}
