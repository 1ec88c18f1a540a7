using System.Buffers;
using System.Runtime.InteropServices;

namespace StorageEngine.Common;

/// <summary>
/// Aligned native memory that can also be handed out as <see cref="Memory{T}"/> (for vectored writes) without
/// copying or pinning. Owned by one component, which disposes it.
/// </summary>
internal sealed unsafe class NativeBuffer : MemoryManager<byte>
{
    public const int Alignment = 4096;
    private byte* _pointer;

    /// <summary>Zeroed memory of <paramref name="length"/> bytes.</summary>
    public NativeBuffer(int length) : this(length, clear: true) { }

    /// <summary>Memory of <paramref name="length"/> bytes, zeroed only when <paramref name="clear"/> (else whatever the allocator held).</summary>
    public NativeBuffer(int length, bool clear) : this(length, length, clear) { }

    /// <summary>
    /// <paramref name="capacity"/> bytes of memory of which the first <paramref name="length"/> are in use (see
    /// <see cref="Resize"/>); only those are zeroed or faulted in.
    /// </summary>
    public NativeBuffer(int length, int capacity, bool clear)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(length, capacity);
        Length = length;
        Capacity = capacity;
        _pointer = (byte*)NativeMemory.AlignedAlloc((nuint)Math.Max(capacity, 1), Alignment);
        if (clear) new Span<byte>(_pointer, length).Clear();
        else
        {
            // Fresh memory is faulted in by a write: a first read (the runtime's copy reads its destination's first
            // byte) would map the shared zero page, and the write after it take a second fault that replaces
            // the page and interrupts every other core to flush its translation (a sixth of a small commit's time
            // while the writer's pool grew).
            for (int offset = 0; offset < length; offset += Alignment) _pointer[offset] = 0;
        }
    }

    /// <summary>
    /// A view of <paramref name="length"/> bytes of memory its creator owns and frees (a slab of the page buffer
    /// pool): disposing it frees nothing.
    /// </summary>
    public static NativeBuffer Borrowed(byte* pointer, int length) => new(pointer, length);

    private NativeBuffer(byte* pointer, int length)
    {
        _pointer = pointer;
        _borrowed = true;
        Length = length;
        Capacity = length;
    }

    // Set for a view of memory owned elsewhere (see Borrowed).
    private readonly bool _borrowed;

    public byte* Pointer => _pointer != null ? _pointer : throw new ObjectDisposedException(nameof(NativeBuffer));

    /// <summary>Bytes in use: what <see cref="GetSpan"/> and <see cref="MemoryManager{T}.Memory"/> cover.</summary>
    public int Length { get; private set; }

    /// <summary>Bytes allocated, at least <see cref="Length"/>.</summary>
    public int Capacity { get; }

    /// <summary>Uses the first <paramref name="length"/> bytes of the allocation (a pooled buffer reused for a shorter run).</summary>
    public void Resize(int length)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(length, Capacity);
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        Length = length;
    }

    public override Span<byte> GetSpan() => new(Pointer, Length);

    public override MemoryHandle Pin(int elementIndex = 0) => new(Pointer + elementIndex);

    public override void Unpin() { }

    /// <summary>Frees the memory.</summary>
    public void Free() => ((IDisposable)this).Dispose();

    protected override void Dispose(bool disposing)
    {
        if (_pointer == null) return;
        if (!_borrowed) NativeMemory.AlignedFree(_pointer);
        _pointer = null;
    }
}
