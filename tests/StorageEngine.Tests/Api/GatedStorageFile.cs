using StorageEngine.Platform;

namespace StorageEngine.Tests.Api;

/// <summary>A file whose <see cref="Flush"/> passes a <see cref="FlushGate"/> first.</summary>
internal sealed class GatedStorageFile(IStorageFile inner, FlushGate gate) : IStorageFile
{
    public string Path => inner.Path;

    public long Length => inner.Length;

    public bool IsWriteThrough => inner.IsWriteThrough;

    public int Alignment => inner.Alignment;

    public void SetLength(long length) => inner.SetLength(length);

    public void Preallocate(long length) => inner.Preallocate(length);

    public int Read(long offset, Span<byte> destination) => inner.Read(offset, destination);

    public void Write(long offset, ReadOnlySpan<byte> source) => inner.Write(offset, source);

    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers) => inner.Write(offset, buffers);

    public void Flush()
    {
        gate.Pass();
        inner.Flush();
    }

    public IMappedView Map(long length) => inner.Map(length);

    public bool TryLockEnvironment(bool shared, out string? holder) => inner.TryLockEnvironment(shared, out holder);

    public void Dispose() => inner.Dispose();
}
