namespace StorageEngine.Platform;

/// <summary>
/// One change to an in-memory file since its last flush, with what it overwrote, so that a simulated power loss
/// can undo it and then decide whether it reached the disk.
/// </summary>
internal sealed class MemoryPendingOperation
{
    private MemoryPendingOperation(bool isWrite, long offset, byte[] data, byte[] before, long oldLength, long newLength, bool isDurable)
    {
        IsWrite = isWrite;
        Offset = offset;
        Data = data;
        Before = before;
        OldLength = oldLength;
        NewLength = newLength;
        IsDurable = isDurable;
    }

    /// <summary>True for a write, false for a length change.</summary>
    public bool IsWrite { get; }

    /// <summary>Where the write started (writes only).</summary>
    public long Offset { get; }

    /// <summary>The bytes written (writes only).</summary>
    public byte[] Data { get; }

    /// <summary>
    /// The bytes the operation destroyed: for a write, the old bytes it overwrote below the old length; for a
    /// truncation, the bytes cut off.
    /// </summary>
    public byte[] Before { get; }

    /// <summary>File length before the operation.</summary>
    public long OldLength { get; }

    /// <summary>File length set by a length change (length changes only).</summary>
    public long NewLength { get; }

    /// <summary>
    /// True for a write-through write: it must survive power loss, but it is logged anyway when earlier volatile
    /// operations are pending, because undoing those in reverse order would otherwise clobber it.
    /// </summary>
    public bool IsDurable { get; }

    /// <summary>Describes a write.</summary>
    public static MemoryPendingOperation Write(long offset, byte[] data, byte[] before, long oldLength, bool isDurable) =>
        new(isWrite: true, offset, data, before, oldLength, newLength: Math.Max(oldLength, offset + data.Length), isDurable);

    /// <summary>Describes a length change.</summary>
    public static MemoryPendingOperation SetLength(long oldLength, long newLength, byte[] before) =>
        new(isWrite: false, offset: 0, data: [], before, oldLength, newLength, isDurable: false);
}
