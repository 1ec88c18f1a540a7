namespace StorageEngine.Workloads;

/// <summary>
/// One destination buffer per worker thread, each with unused room at its end so that no two threads' buffers
/// share a cache line. Buffers of a 100-byte value allocated one after the other did: every read on one thread
/// then evicted the line the other thread was copying into, slowing multi-threaded reads of every engine.
/// </summary>
internal static class PerThreadBuffers
{
    // Two cache lines: adjacent-line prefetching pairs lines on some CPUs.
    private const int Padding = 128;

    /// <summary><paramref name="threads"/> buffers of at least <paramref name="length"/> bytes each.</summary>
    public static byte[][] Create(int threads, int length) =>
        Enumerable.Range(0, threads).Select(_ => new byte[length + Padding]).ToArray();
}
