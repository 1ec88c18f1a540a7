using StorageEngine.Platform;

namespace StorageEngine.Tests.Durability;

/// <summary>A file of a <see cref="CrashingFileSystem"/>: reads pass, changes ask the file system first.</summary>
internal sealed class CrashingStorageFile : IStorageFile
{
    private readonly CrashingFileSystem _fileSystem;
    private readonly IStorageFile _inner;

    public CrashingStorageFile(CrashingFileSystem fileSystem, IStorageFile inner)
    {
        _fileSystem = fileSystem;
        _inner = inner;
    }

    public string Path => _inner.Path;

    public long Length => _inner.Length;

    public bool IsWriteThrough => _inner.IsWriteThrough;

    public int Alignment => _inner.Alignment;

    public void SetLength(long length)
    {
        _fileSystem.BeforeChange($"setting the length of {Path}");
        _inner.SetLength(length);
    }

    public void Preallocate(long length)
    {
        _fileSystem.BeforeChange($"preallocating {Path}");
        _inner.Preallocate(length);
    }

    public int Read(long offset, Span<byte> destination) => _inner.Read(offset, destination);

    public void Write(long offset, ReadOnlySpan<byte> source)
    {
        _fileSystem.BeforeChange($"writing {Path}");
        _inner.Write(offset, source);
    }

    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        _fileSystem.BeforeChange($"writing {Path}");
        _inner.Write(offset, buffers);
    }

    public void Flush()
    {
        _fileSystem.BeforeChange($"syncing {Path}");
        _inner.Flush();
    }

    public IMappedView Map(long length) => _inner.Map(length);

    public void Dispose() => _inner.Dispose();
}
