using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace StorageEngine.BTrees;

/// <summary>
/// The order of keys: bytewise, a shorter key before every longer key it is a prefix of. Tree searches
/// compare short keys millions of times a second; a word-at-a-time comparison that inlines beats the general
/// vectorized <see cref="MemoryExtensions.SequenceCompareTo{T}(ReadOnlySpan{T}, ReadOnlySpan{T})"/> there,
/// which still serves long keys.
/// </summary>
internal static class KeyOrder
{
    private const int LongKey = 64;

    /// <summary>Negative, zero or positive as <paramref name="a"/> sorts before, with or after <paramref name="b"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Compare(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b)
    {
        int common = Math.Min(a.Length, b.Length);
        if (common >= LongKey) return a.SequenceCompareTo(b);
        ref byte x = ref MemoryMarshal.GetReference(a);
        ref byte y = ref MemoryMarshal.GetReference(b);
        int i = 0;
        for (; i <= common - sizeof(ulong); i += sizeof(ulong))
        {
            ulong u = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref x, i));
            ulong v = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref y, i));
            if (u != v)
            {
                // The first differing byte decides: as big-endian integers, the words compare exactly so.
                if (BitConverter.IsLittleEndian)
                {
                    u = BinaryPrimitives.ReverseEndianness(u);
                    v = BinaryPrimitives.ReverseEndianness(v);
                }
                return u < v ? -1 : 1;
            }
        }
        for (; i < common; i++)
        {
            int difference = Unsafe.Add(ref x, i) - Unsafe.Add(ref y, i);
            if (difference != 0) return difference;
        }
        return a.Length - b.Length;
    }
}
