using System.Runtime.InteropServices;
using StorageEngine.Platform;

namespace StorageEngine.Tests.Faults;

/// <summary>
/// A private copy of a mapping with one range overwritten by garbage: what reading a mapped page off a failing
/// device would return if it returned anything. It does not follow later writes, so tests read only.
/// </summary>
internal sealed unsafe class PoisonedMappedView : IMappedView
{
    private byte* _memory;

    public PoisonedMappedView(IMappedView source, long offset, int length)
    {
        Length = source.Length;
        _memory = (byte*)NativeMemory.AlignedAlloc((nuint)Math.Max(Length, 1), 4096);
        Buffer.MemoryCopy(source.Pointer, _memory, Length, Length);
        for (int i = 0; i < length; i++) _memory[offset + i] = (byte)(0xA5 ^ i);
    }

    public byte* Pointer => _memory;

    public long Length { get; }

    /// <summary>Private memory reads ahead of nothing.</summary>
    public void AdviseRandomAccess()
    {
    }

    /// <summary>A private copy follows no writes anyway.</summary>
    public void Retire()
    {
    }

    public void Dispose()
    {
        if (_memory is null) return;
        NativeMemory.AlignedFree(_memory);
        _memory = null;
    }
}
