namespace StorageEngine.Tests.Durability;

/// <summary>
/// An InMemory environment has no journal and no checkpoints, so a page freed by a commit is reusable as soon as no
/// reader sees it, also a page whose committed version was not yet placed when the freeing transaction began (a
/// young page: the writer built on a commit still in flight, from another thread or through CommitAsync). Such
/// pages were released only by the checkpoint-aware path that InMemory never runs, so concurrent writers grew an
/// InMemory environment without bound (a 200 MB tree took 4 GB after a few seconds of 1-put updates from two
/// threads).
/// </summary>
public sealed class InMemoryPageReuseTests
{
    private const int Keys = 2_000;
    private const int ValueSize = 1_000;
    private const int UpdatesPerWriter = 3_000;

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    public async Task Writers_with_commits_in_flight_reuse_freed_pages_instead_of_growing_the_file(int writers)
    {
        using var environment = StorageEnvironment.CreateInMemory();
        Load(environment);
        long loaded = environment.GetStatistics().PageCount;

        await Task.WhenAll(Enumerable.Range(0, writers).Select(w => Task.Run(async () =>
        {
            var random = new Random(w + 1);
            var value = new byte[ValueSize];
            var inFlight = new Queue<ValueTask>();
            for (int i = 0; i < UpdatesPerWriter; i++)
            {
                random.NextBytes(value);
                using var transaction = environment.BeginWrite();
                transaction.OpenTree("t").Put(Key(random.Next(Keys)), value);
                // One writer keeps commits in flight; with two, each commits while the other builds on it.
                if (writers == 1)
                {
                    inFlight.Enqueue(transaction.CommitAsync());
                    while (inFlight.Count >= 4) await inFlight.Dequeue();
                }
                else transaction.Commit();
            }
            while (inFlight.Count > 0) await inFlight.Dequeue();
        })));

        var statistics = environment.GetStatistics();
        long used = statistics.PageCount - statistics.FreePages;
        // Every update frees a leaf and its path (four pages or so); without reuse the file grows by that much per
        // update, some 12,000 pages per writer here. Pages in flight and a bitmap section's slack stay well under.
        Assert.True(statistics.PageCount <= loaded + 512,
            $"the environment grew from {loaded} to {statistics.PageCount} pages ({used} in use) over {writers * UpdatesPerWriter} 1-put updates.");
        var report = environment.Check();
        Assert.True(report.IsHealthy, string.Join("; ", report.Problems));
    }

    private static void Load(StorageEnvironment environment)
    {
        using var transaction = environment.BeginWrite();
        var tree = transaction.CreateTree("t");
        var value = new byte[ValueSize];
        for (int i = 0; i < Keys; i++) tree.Put(Key(i), value);
        transaction.Commit();
    }

    private static byte[] Key(int i) => BitConverter.GetBytes(System.Buffers.Binary.BinaryPrimitives.ReverseEndianness(i));
}
