using System.Buffers.Binary;
using StorageEngine.BTrees;
using StorageEngine.Common;

namespace StorageEngine;

/// <summary>
/// Sorting of batch keys by their 8-byte prefix (big-endian, zero-padded), with the caller's positions alongside;
/// keys longer than 8 bytes, or sharing a prefix, are ordered fully within each run of equal prefixes. Input
/// already in order is detected and left as it is.
/// </summary>
internal static class BatchKeySort
{
    /// <summary>The sort key of an 8-byte integer key: its encoded form read as a big-endian integer.</summary>
    public static ulong Int64Prefix(long key) => (ulong)key ^ 0x8000_0000_0000_0000UL;

    /// <summary>The first 8 bytes of a key as a big-endian integer, missing bytes as zeros.</summary>
    public static ulong Prefix(ReadOnlySpan<byte> key)
    {
        if (key.Length >= 8) return BinaryPrimitives.ReadUInt64BigEndian(key);
        Span<byte> padded = stackalloc byte[8];
        padded.Clear();
        key.CopyTo(padded);
        return BinaryPrimitives.ReadUInt64BigEndian(padded);
    }

    /// <summary>
    /// Sorts <paramref name="prefixes"/> with <paramref name="order"/> (filled with 0..count-1 by the caller's
    /// order) alongside. With <paramref name="keys"/> (indexed by position), runs of equal prefixes are then
    /// ordered by the full key; ties keep their positions in increasing order, so that a later write of a key
    /// comes after an earlier one. Returns false when the input was already in order (nothing moved).
    /// </summary>
    public static bool Sort(Span<ulong> prefixes, Span<int> order, ReadOnlyMemory<byte>[] keys, bool variable, Span<ulong> prefixScratch, Span<int> orderScratch)
    {
        if (IsSorted(prefixes, order, keys, variable)) return false;
        // Stable: equal prefixes keep their positions in increasing order, which is all that 8-byte keys need.
        RadixSort.Sort(prefixes, order, prefixScratch, orderScratch);
        if (!variable) return true;
        int count = prefixes.Length;
        for (int start = 0; start < count;)
        {
            int end = start + 1;
            while (end < count && prefixes[end] == prefixes[start]) end++;
            if (end - start > 1) order[start..end].Sort(new PositionOrder(keys));
            start = end;
        }
        return true;
    }

    /// <summary>Orders positions by their keys, then by position.</summary>
    private readonly struct PositionOrder(ReadOnlyMemory<byte>[] keys) : IComparer<int>
    {
        public int Compare(int a, int b)
        {
            int c = KeyOrder.Compare(keys[a].Span, keys[b].Span);
            return c != 0 ? c : a.CompareTo(b);
        }
    }

    private static bool IsSorted(ReadOnlySpan<ulong> prefixes, ReadOnlySpan<int> order, ReadOnlyMemory<byte>[] keys, bool variable)
    {
        for (int i = 1; i < prefixes.Length; i++)
        {
            if (prefixes[i] > prefixes[i - 1]) continue;
            if (prefixes[i] < prefixes[i - 1]) return false;
            if (variable && KeyOrder.Compare(keys[order[i - 1]].Span, keys[order[i]].Span) > 0) return false;
        }
        return true;
    }
}
