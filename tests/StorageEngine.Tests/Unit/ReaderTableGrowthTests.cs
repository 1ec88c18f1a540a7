using StorageEngine.Transactions;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// The reader table allocates its slots a chunk at a time, as readers need them. These tests guard what that must
/// not change: every slot up to the capacity can be claimed, and a writer computing the oldest reader while readers
/// register into chunks being allocated never misses a reader.
/// </summary>
public sealed class ReaderTableGrowthTests
{
    [Fact]
    public void An_open_table_allocates_slots_only_for_the_readers_it_has()
    {
        var readers = new ReaderTable(1024);
        Assert.Equal(0, readers.ChunksAllocated);
        Assert.Equal(long.MaxValue, readers.Oldest());
        Assert.Equal(0, readers.Count);

        int slot = readers.Register(9);
        Assert.Equal(1, readers.ChunksAllocated);
        Assert.Equal(9, readers.Oldest());
        readers.Release(slot);
        Assert.Equal(long.MaxValue, readers.Oldest());
    }

    [Theory]
    [InlineData(1)]
    [InlineData(63)]
    [InlineData(64)]
    [InlineData(100)]
    [InlineData(1024)]
    public void Every_slot_up_to_the_capacity_can_be_claimed_and_no_more(int capacity)
    {
        var readers = new ReaderTable(capacity);
        var slots = new HashSet<int>();
        for (int i = 0; i < capacity; i++) Assert.True(slots.Add(readers.Register(5000 - i)));
        Assert.All(slots, slot => Assert.InRange(slot, 0, capacity - 1));
        Assert.Equal(capacity, readers.Count);
        Assert.Equal(5000 - capacity + 1, readers.Oldest());
        Assert.Equal(capacity, readers.TakeRegistrations().Length);
        Assert.Throws<InvalidOperationException>(() => readers.Register(1));

        foreach (int slot in slots) readers.Release(slot);
        Assert.Equal(0, readers.Count);
        Assert.Equal(long.MaxValue, readers.Oldest());
    }

    /// <summary>
    /// Readers register as BeginRead does (announce a snapshot, then move to the latest one until it holds still)
    /// into fresh tables, many at once, so that several readers allocate chunks side by side, while a writer keeps
    /// publishing snapshots and taking the oldest reader as the bound below which it would reclaim pages. A reader
    /// holding a snapshot below that bound is one the scan missed.
    /// </summary>
    [Fact]
    public void A_writer_computing_the_oldest_reader_while_readers_register_into_new_chunks_never_misses_one()
    {
        const int Threads = 6;
        const int ReadersPerThread = 24;
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(3);
        int rounds = 0;
        long missed = 0;
        while (DateTime.UtcNow < deadline || rounds < 20)
        {
            rounds++;
            // Enough slots that the readers spread over several chunks, each allocated during the round.
            var readers = new ReaderTable(Threads * ReadersPerThread + ReaderTable.ChunkSlots);
            long published = 1;
            long reclaimedBelow = 0;
            int running = Threads;
            using var start = new Barrier(Threads + 1);

            var writer = new Thread(() =>
            {
                start.SignalAndWait();
                while (Volatile.Read(ref running) > 0)
                {
                    long next = Interlocked.Increment(ref published);
                    // As the commit pipeline does: publish, then scan (the increment is a full fence).
                    long bound = Math.Min(readers.Oldest(), next);
                    long seen = Volatile.Read(ref reclaimedBelow);
                    while (bound > seen)
                    {
                        long found = Interlocked.CompareExchange(ref reclaimedBelow, bound, seen);
                        if (found == seen) break;
                        seen = found;
                    }
                }
            });
            var threads = Enumerable.Range(0, Threads).Select(_ => new Thread(() =>
            {
                start.SignalAndWait();
                var held = new List<(int Slot, long Snapshot)>();
                for (int r = 0; r < ReadersPerThread; r++)
                {
                    long snapshot = Volatile.Read(ref published);
                    int slot = readers.Register(snapshot);
                    while (true)
                    {
                        long latest = Volatile.Read(ref published);
                        if (latest == snapshot) break;
                        snapshot = latest;
                        readers.Update(slot, snapshot);
                    }
                    held.Add((slot, snapshot));
                    // Every reader still held must be at or above what the writer would reclaim.
                    foreach (var (_, holding) in held)
                    {
                        if (Volatile.Read(ref reclaimedBelow) > holding) Interlocked.Increment(ref missed);
                    }
                }
                Thread.SpinWait(200);
                foreach (var (_, holding) in held)
                {
                    if (Volatile.Read(ref reclaimedBelow) > holding) Interlocked.Increment(ref missed);
                }
                foreach (var (slot, _) in held) readers.Release(slot);
                Interlocked.Decrement(ref running);
            })).ToList();

            writer.Start();
            threads.ForEach(t => t.Start());
            threads.ForEach(t => t.Join());
            writer.Join();

            Assert.Equal(0, Interlocked.Read(ref missed));
            Assert.Equal(0, readers.Count);
            Assert.True(readers.ChunksAllocated >= 1);
        }
    }
}
