namespace StorageEngine.Paging;

/// <summary>
/// One bit per page: set once the page's checksum was verified (or the page was written by this process).
/// Readers verify a mapped page the first time they touch it and pay a bit test afterwards. Lock-free; a
/// race verifies a page twice, which is harmless.
/// </summary>
internal sealed class VerifiedPages
{
    // 2^15 pages per chunk: 512 ulongs (4 KiB). Each open starts an empty set, and the first page verified allocates
    // a chunk: with 2^18 pages per chunk that was 32 KiB zeroed per open, a third of a small open's allocations.
    private const int ChunkShift = 15;
    private const int ChunkWords = (1 << ChunkShift) / 64;
    private ulong[]?[] _chunks = new ulong[]?[64];
    private readonly object _growLock = new();

    public bool Contains(long page)
    {
        var chunks = Volatile.Read(ref _chunks);
        long c = page >> ChunkShift;
        if (c >= chunks.Length) return false;
        var chunk = Volatile.Read(ref chunks[c]);
        if (chunk is null) return false;
        long bit = page & ((1 << ChunkShift) - 1);
        return (Volatile.Read(ref chunk[bit >> 6]) & (1UL << (int)(bit & 63))) != 0;
    }

    public void Add(long page, long count = 1)
    {
        for (long p = page; p < page + count; p++)
        {
            var chunk = Chunk(p >> ChunkShift);
            long bit = p & ((1 << ChunkShift) - 1);
            Interlocked.Or(ref chunk[bit >> 6], 1UL << (int)(bit & 63));
        }
    }

    /// <summary>Forgets pages (their number now holds something else).</summary>
    public void Remove(long page, long count = 1)
    {
        for (long p = page; p < page + count; p++)
        {
            var chunks = Volatile.Read(ref _chunks);
            long c = p >> ChunkShift;
            if (c >= chunks.Length || Volatile.Read(ref chunks[c]) is not { } chunk) continue;
            long bit = p & ((1 << ChunkShift) - 1);
            Interlocked.And(ref chunk[bit >> 6], ~(1UL << (int)(bit & 63)));
        }
    }

    private ulong[] Chunk(long index)
    {
        var chunks = Volatile.Read(ref _chunks);
        if (index < chunks.Length && Volatile.Read(ref chunks[index]) is { } existing) return existing;
        lock (_growLock)
        {
            chunks = _chunks;
            if (index >= chunks.Length)
            {
                var bigger = new ulong[]?[Math.Max(chunks.Length * 2, index + 1)];
                Array.Copy(chunks, bigger, chunks.Length);
                Volatile.Write(ref _chunks, bigger);
                chunks = bigger;
            }
            return chunks[index] ??= new ulong[ChunkWords];
        }
    }
}
