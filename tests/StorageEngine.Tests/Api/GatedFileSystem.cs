using StorageEngine.Platform;

namespace StorageEngine.Tests.Api;

/// <summary>A file system whose files flush and write through an <see cref="IoGate"/>; everything else goes to the inner one.</summary>
internal sealed class GatedFileSystem(IFileSystem inner, IoGate gate) : IFileSystem
{
    public bool IsInMemory => inner.IsInMemory;

    public IStorageFile Open(string path, StorageFileMode mode) => new GatedStorageFile(inner.Open(path, mode), gate);

    public bool Exists(string path) => inner.Exists(path);

    public void Delete(string path) => inner.Delete(path);

    public void Rename(string from, string to) => inner.Rename(from, to);

    public IReadOnlyList<string> ListFiles(string directory) => inner.ListFiles(directory);

    public void CreateDirectory(string path) => inner.CreateDirectory(path);

    public IDisposable AcquireLock(string lockFilePath) => inner.AcquireLock(lockFilePath);

    public IDisposable AcquireSharedLock(string lockFilePath) => inner.AcquireSharedLock(lockFilePath);
}
