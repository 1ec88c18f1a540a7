using System.Runtime.Intrinsics.X86;

namespace StorageEngine.Common;

/// <summary>
/// Hints that start bringing memory into the CPU cache before it is read. A range scan over a tree larger
/// than the cache is bound by memory latency, not by instructions: entries sit in a page in the order they
/// were inserted, not in key order, so the hardware's stream prefetcher cannot guess the next one, and each
/// entry costs a cache miss when nothing asks for it early. Prefetching never faults, so a hint may point
/// anywhere. On processors without the instruction (Arm) the hints do nothing.
/// </summary>
internal static unsafe class CachePrefetch
{
    private const int LineSize = 64;

    /// <summary>Starts loading the cache line that holds <paramref name="address"/>.</summary>
    public static void Line(byte* address)
    {
        if (Sse.IsSupported) Sse.Prefetch0(address);
    }

    /// <summary>Starts loading every cache line of <paramref name="length"/> bytes from <paramref name="start"/>.</summary>
    public static void Range(byte* start, int length)
    {
        if (!Sse.IsSupported) return;
        for (int offset = 0; offset < length; offset += LineSize) Sse.Prefetch0(start + offset);
    }
}
