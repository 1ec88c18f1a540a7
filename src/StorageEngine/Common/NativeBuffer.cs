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
    public NativeBuffer(int length, bool clear)
    {
        Length = length;
        _pointer = (byte*)NativeMemory.AlignedAlloc((nuint)Math.Max(length, 1), Alignment);
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

    public byte* Pointer => _pointer != null ? _pointer : throw new ObjectDisposedException(nameof(NativeBuffer));

    public int Length { get; }

    public override Span<byte> GetSpan() => new(Pointer, Length);

    public override MemoryHandle Pin(int elementIndex = 0) => new(Pointer + elementIndex);

    public override void Unpin() { }

    /// <summary>Frees the memory.</summary>
    public void Free() => ((IDisposable)this).Dispose();

    protected override void Dispose(bool disposing)
    {
        if (_pointer == null) return;
        NativeMemory.AlignedFree(_pointer);
        _pointer = null;
    }
}
