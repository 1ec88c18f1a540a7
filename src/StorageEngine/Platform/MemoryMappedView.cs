namespace StorageEngine.Platform;

/// <summary>
/// A view of an in-memory file: the buffer that was current when it was made, kept alive by a reference even if
/// the file has grown into a new buffer since. Writes made after growth are not visible through it.
/// </summary>
internal sealed unsafe class MemoryMappedView : IMappedView
{
    private MemoryBuffer? _buffer;

    /// <summary>Takes ownership of one reference on <paramref name="buffer"/> (null for an empty view).</summary>
    public MemoryMappedView(MemoryBuffer? buffer, long length)
    {
        _buffer = buffer;
        Pointer = buffer is null ? null : buffer.Pointer;
        Length = length;
    }

    /// <inheritdoc />
    public byte* Pointer { get; }

    /// <inheritdoc />
    public long Length { get; }

    /// <summary>Drops the view's reference; the buffer is freed if the file has moved on to a newer one.</summary>
    public void Dispose() => Interlocked.Exchange(ref _buffer, null)?.Release();
}
