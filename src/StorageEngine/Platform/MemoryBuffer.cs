using System.Runtime.InteropServices;

namespace StorageEngine.Platform;

/// <summary>
/// A reference-counted block of native memory holding an in-memory file's content. The file holds one reference
/// and every mapped view one more, so a buffer replaced by growth lives on until the last view of it is disposed.
/// </summary>
internal sealed unsafe class MemoryBuffer
{
    /// <summary>Page alignment, so that buffers behave like mapped files for callers that rely on it.</summary>
    public const int BufferAlignment = 4096;

    private nint _address;
    private int _references = 1;
    private int _pins;

    /// <summary>Allocates <paramref name="capacity"/> zeroed bytes, owned by the caller's single reference.</summary>
    public MemoryBuffer(long capacity)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(capacity);
        byte* pointer = (byte*)NativeMemory.AlignedAlloc((nuint)capacity, BufferAlignment);
        NativeMemory.Clear(pointer, (nuint)capacity);
        _address = (nint)pointer;
        Pointer = pointer;
        Capacity = capacity;

        // The GC cannot see native memory; without this, buffers dropped without release (a crashed
        // environment's views) would wait far too long for their finalizers.
        GC.AddMemoryPressure(capacity);
    }

    /// <summary>Releases the memory when nothing released it first (a view or a file that was abandoned).</summary>
    ~MemoryBuffer()
    {
        Free();
    }

    /// <summary>Address of the first byte.</summary>
    public byte* Pointer { get; }

    /// <summary>Size of the allocation in bytes.</summary>
    public long Capacity { get; }

    /// <summary>
    /// Adds a reference. Callers must already hold one (the owning file's, under its lock), which is what
    /// guarantees the buffer has not been freed.
    /// </summary>
    public void AddReference() => Interlocked.Increment(ref _references);

    /// <summary>
    /// Whether anything besides the caller's own reference (a mapped view) still holds the buffer and relies on
    /// seeing the file's writes; pins (see <see cref="Pin"/>) do not count.
    /// </summary>
    /// <remarks>
    /// Pins are added after their reference and taken off before it, so a read racing them can only see a
    /// buffer as shared that is not, never the reverse.
    /// </remarks>
    public bool IsShared => Volatile.Read(ref _references) - Volatile.Read(ref _pins) > 1;

    /// <summary>
    /// Adds a reference that keeps the memory but needs no later writes (a view no snapshot uses, kept readable
    /// for stale spans); the caller already holds a reference. Dropped by <see cref="Unpin"/>.
    /// </summary>
    public void Pin()
    {
        Interlocked.Increment(ref _references);
        Interlocked.Increment(ref _pins);
    }

    /// <summary>Drops a pin, freeing the memory if it was the last reference.</summary>
    public void Unpin()
    {
        Interlocked.Decrement(ref _pins);
        Release();
    }

    /// <summary>Drops a reference, freeing the memory with the last one.</summary>
    public void Release()
    {
        if (Interlocked.Decrement(ref _references) == 0)
        {
            Free();
            GC.SuppressFinalize(this);
        }
    }

    private void Free()
    {
        nint address = Interlocked.Exchange(ref _address, 0);
        if (address != 0)
        {
            NativeMemory.AlignedFree((void*)address);
            GC.RemoveMemoryPressure(Capacity);
        }
    }
}
