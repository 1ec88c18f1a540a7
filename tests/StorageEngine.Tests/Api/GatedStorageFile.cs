using StorageEngine.Platform;

namespace StorageEngine.Tests.Api;

/// <summary>A file whose flushes and writes pass an <see cref="IoGate"/> first.</summary>
internal sealed class GatedStorageFile(IStorageFile inner, IoGate gate) : IStorageFile
{
    public string Path => inner.Path;

    public long Length => inner.Length;

    public bool IsWriteThrough => inner.IsWriteThrough;

    public int Alignment => inner.Alignment;

    public void SetLength(long length) => inner.SetLength(length);

    public void Preallocate(long length) => inner.Preallocate(length);

    public int Read(long offset, Span<byte> destination) => inner.Read(offset, destination);

    public void Write(long offset, ReadOnlySpan<byte> source)
    {
        gate.PassWrite(Path);
        inner.Write(offset, source);
    }

    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        gate.PassWrite(Path);
        inner.Write(offset, buffers);
    }

    public void Flush()
    {
        gate.PassFlush(Path);
        inner.Flush();
    }

    public IMappedView Map(long length) => inner.Map(length);

    public bool TryLockEnvironment(bool shared, out string? holder) => inner.TryLockEnvironment(shared, out holder);

    public void Dispose() => inner.Dispose();
}
