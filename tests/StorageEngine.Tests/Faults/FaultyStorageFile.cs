using StorageEngine.Platform;

namespace StorageEngine.Tests.Faults;

/// <summary>A file of a <see cref="FaultyFileSystem"/>: every call is counted and may suffer the armed fault.</summary>
internal sealed class FaultyStorageFile : IStorageFile
{
    private const int SectorSize = 512;
    private readonly FaultyFileSystem _fileSystem;
    private readonly IStorageFile _inner;
    private readonly bool? _reportWriteThrough;

    public FaultyStorageFile(FaultyFileSystem fileSystem, IStorageFile inner, bool? reportWriteThrough)
    {
        _fileSystem = fileSystem;
        _inner = inner;
        _reportWriteThrough = reportWriteThrough;
    }

    public string Path => _inner.Path;

    public long Length => _inner.Length;

    public bool IsWriteThrough => _reportWriteThrough ?? _inner.IsWriteThrough;

    public int Alignment => _inner.Alignment;

    public void SetLength(long length)
    {
        if (length > _inner.Length) _fileSystem.ThrowIfFaulted(FileOperation.Growth, Path, out _);
        else if (_fileSystem.HasCrashed) _fileSystem.ThrowIfFaulted(FileOperation.Write, Path, out _);
        _inner.SetLength(length);
    }

    public void Preallocate(long length)
    {
        var kind = _fileSystem.Enter(FileOperation.Growth, Path);
        if (kind is null)
        {
            long before = _inner.Length;
            _inner.Preallocate(length);
            _fileSystem.CountPreallocated(Path, length - before);
            return;
        }
        // Zeros are written chunk by chunk, so a full disk or a crash stops the file part of the way.
        long current = _inner.Length;
        if (kind is FaultKind.DiskFull or FaultKind.Crash && length > current)
        {
            long partial = current + (length - current) / 2 / SectorSize * SectorSize;
            if (kind == FaultKind.DiskFull || _fileSystem.Random.Next(2) == 0) _inner.Preallocate(partial);
        }
        throw FaultyFileSystem.Failure(kind.Value, FileOperation.Growth, Path);
    }

    public int Read(long offset, Span<byte> destination)
    {
        _fileSystem.ThrowIfFaulted(FileOperation.Read, Path, out _);
        return _inner.Read(offset, destination);
    }

    public void Write(long offset, ReadOnlySpan<byte> source)
    {
        if (offset + source.Length > _inner.Length) GrowByWriting(offset, source);
        var kind = _fileSystem.Enter(FileOperation.Write, Path);
        if (kind is null)
        {
            _inner.Write(offset, source);
            _fileSystem.CountWritten(Path, source.Length);
            return;
        }
        Land(kind.Value, offset, source);
        throw FaultyFileSystem.Failure(kind.Value, FileOperation.Write, Path);
    }

    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        long total = 0;
        foreach (var buffer in buffers) total += buffer.Length;
        if (offset + total > _inner.Length) GrowByWriting(offset, Gather(buffers));
        var kind = _fileSystem.Enter(FileOperation.Write, Path);
        if (kind is null)
        {
            _inner.Write(offset, buffers);
            foreach (var buffer in buffers) _fileSystem.CountWritten(Path, buffer.Length);
            return;
        }
        Land(kind.Value, offset, Gather(buffers));
        throw FaultyFileSystem.Failure(kind.Value, FileOperation.Write, Path);
    }

    private static byte[] Gather(IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        var gathered = new List<byte>();
        foreach (var buffer in buffers) gathered.AddRange(buffer.ToArray());
        return gathered.ToArray();
    }

    /// <summary>
    /// A write that ends past the end of the file grows it, as <see cref="FileOperation.Growth"/>: a full disk
    /// stops it part of the way (the kernel writes what fits, then fails), a crash lands what it lands.
    /// </summary>
    private void GrowByWriting(long offset, ReadOnlySpan<byte> source)
    {
        var kind = _fileSystem.Enter(FileOperation.Growth, Path);
        if (kind is null) return;
        Land(kind == FaultKind.DiskFull ? FaultKind.ShortWrite : kind.Value, offset, source);
        throw FaultyFileSystem.Failure(kind.Value, FileOperation.Growth, Path);
    }

    public void Flush()
    {
        _fileSystem.ThrowIfFaulted(FileOperation.Sync, Path, out _);
        _inner.Flush();
    }

    public IMappedView Map(long length) => _fileSystem.Map(_inner, length);

    public bool TryLockEnvironment(bool shared, out string? holder) => _inner.TryLockEnvironment(shared, out holder);

    public void Dispose() => _inner.Dispose();

    /// <summary>Writes what of a faulted write reaches the file before the error.</summary>
    private void Land(FaultKind kind, long offset, ReadOnlySpan<byte> source)
    {
        switch (kind)
        {
            case FaultKind.LandedThenFailed:
                _inner.Write(offset, source);
                break;
            case FaultKind.ShortWrite:
                _inner.Write(offset, source[..SectorPrefix(offset, source.Length, source.Length / 2)]);
                break;
            case FaultKind.Crash:
                LandCrashed(offset, source);
                break;
        }
    }

    /// <summary>A process dying in a write leaves none of it, a prefix, or (write-back in any order) a scattering of sectors.</summary>
    private void LandCrashed(long offset, ReadOnlySpan<byte> source)
    {
        var random = _fileSystem.Random;
        switch (random.Next(3))
        {
            case 0:
                return;
            case 1:
                _inner.Write(offset, source[..SectorPrefix(offset, source.Length, random.Next(source.Length + 1))]);
                return;
            default:
                for (int start = 0; start < source.Length;)
                {
                    int end = (int)Math.Min(source.Length, (offset + start) / SectorSize * SectorSize + SectorSize - offset);
                    if (random.Next(2) == 0) _inner.Write(offset + start, source[start..end]);
                    start = end;
                }
                return;
        }
    }

    /// <summary>The length of a prefix of about <paramref name="wanted"/> bytes that ends on a sector boundary of the file.</summary>
    private static int SectorPrefix(long offset, int length, int wanted)
    {
        long end = (offset + wanted) / SectorSize * SectorSize;
        return (int)Math.Clamp(end - offset, 0, length);
    }
}
