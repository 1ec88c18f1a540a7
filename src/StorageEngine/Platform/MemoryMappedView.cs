namespace StorageEngine.Platform;

/// <summary>
/// A view of an in-memory file: the buffer that was current when it was made, kept alive by a reference even if
/// the file has grown into a new buffer since. Writes made after growth are not visible through it.
/// </summary>
internal sealed unsafe class MemoryMappedView : IMappedView
{
    private MemoryBuffer? _buffer;
    // The buffer once retired: held by a pin, which keeps the memory without asking for later writes.
    private MemoryBuffer? _pinned;

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

    /// <inheritdoc />
    /// <remarks>Memory reads ahead of nothing.</remarks>
    public void AdviseRandomAccess()
    {
    }

    /// <inheritdoc />
    /// <remarks>Swaps the view's reference for a pin: the file stops copying writes into an outgrown buffer, which stays allocated.</remarks>
    public void Retire()
    {
        var buffer = Interlocked.Exchange(ref _buffer, null);
        if (buffer is null) return;
        buffer.Pin();
        _pinned = buffer;
        buffer.Release();
    }

    /// <summary>Drops the view's reference; the buffer is freed if the file has moved on to a newer one.</summary>
    public void Dispose()
    {
        Interlocked.Exchange(ref _buffer, null)?.Release();
        Interlocked.Exchange(ref _pinned, null)?.Unpin();
    }
}
