using StorageEngine.Platform;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// A writer about to grow the file while many freed pages wait asks for a checkpoint first. When a checkpoint
/// that ended during its transaction (a background one) already covered every commit, it ran none, released
/// nothing and grew the file, though the waiting pages were reusable: only the next transaction released them.
/// A writer that outran lagging checkpoints grew the file by that much on every such transaction.
/// </summary>
public sealed class WriterReusesPagesACheckpointCoveredDuringItsTransactionTests
{
    private const int Keys = 3_000;
    private const int WaitingLimit = 64;

    [Fact]
    public void Pages_a_checkpoint_covered_during_the_transaction_are_reused_before_the_file_grows()
    {
        var options = new StorageEnvironmentOptions
        {
            Path = "/db",
            FileSystem = new MemoryFileSystem(),
            CheckpointThreshold = long.MaxValue,
            CheckpointInterval = TimeSpan.FromHours(1),
        };
        var random = new Random(23);
        using var environment = StorageEnvironment.Open(options);
        environment.FreeSpace.WaitingLimit = WaitingLimit;
        using (var load = environment.BeginWrite())
        {
            var tree = load.CreateTree("t");
            for (int key = 0; key < Keys; key++) tree.Put(Key(key), Value(random));
            load.Commit();
        }
        environment.Checkpoint();
        long usedPages = environment.GetStatistics().PageCount - environment.GetStatistics().FreePages;

        // Stands in for a background checkpoint that ends just before the writer asks: it covers every commit.
        var makeReusable = environment.FreeSpace.MakeReusable!;
        int asked = 0;
        environment.FreeSpace.MakeReusable = () =>
        {
            asked++;
            environment.Checkpoint();
            return makeReusable();
        };
        long mostFreed = 0;
        for (int i = 0; i < 200; i++)
        {
            using var transaction = environment.BeginWrite();
            long waitingBefore = environment.FreeSpace.WaitingPages;
            var tree = transaction.OpenTree("t")!;
            for (int j = 0; j < 40; j++) tree.Put(Key(random.Next(Keys)), Value(random));
            mostFreed = Math.Max(mostFreed, environment.FreeSpace.WaitingPages - waitingBefore);
            transaction.Commit();
        }

        Assert.True(asked > 0, "the writer never reached the waiting limit: the test checks nothing");
        var statistics = environment.GetStatistics();
        // Waiting pages up to the limit, one transaction's frees on top, a bitmap section's slack.
        long bound = usedPages + WaitingLimit + 2 * mostFreed + 64;
        Assert.True(statistics.PageCount <= bound, $"the data file grew to {statistics.PageCount} pages; {usedPages} in use at the start, bound {bound}.");
        Assert.True(environment.Check().IsHealthy);
    }

    private static byte[] Key(int key) => BitConverter.GetBytes(System.Buffers.Binary.BinaryPrimitives.ReverseEndianness(key));

    private static byte[] Value(Random random)
    {
        var value = new byte[300];
        random.NextBytes(value);
        return value;
    }
}
