using StorageEngine.Platform;
using StorageEngine.Tests.Unit;
using StorageEngine.Transactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// Once commits pause, the checkpointer gives back the memory of the page buffers a burst of them left in the
/// writer's pool (down to <see cref="CommitPipeline.IdleReadyBytes"/>), and writing afterwards reuses those
/// buffers with every value intact.
/// </summary>
public sealed class IdleMemoryTests
{
    private const int Entries = 6_000;
    private const int ValueLength = 900;
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(20);

    private static StorageEnvironmentOptions Options(MemoryFileSystem fileSystem) => new()
    {
        Path = "/db",
        FileSystem = fileSystem,
        Durability = DurabilityMode.Safe,
        // The idle delay is a tenth of the interval, at least 100 ms.
        CheckpointInterval = TimeSpan.FromMilliseconds(500),
    };

    [Fact]
    public void After_commits_pause_the_pooled_buffers_beyond_the_floor_are_given_back_and_later_commits_reuse_them()
    {
        var fileSystem = new MemoryFileSystem();
        using (var env = StorageEnvironment.Open(Options(fileSystem)))
        {
            Write(env, seed: 1);
            // A checkpoint, then a writer: the pages the checkpoint wrote go back to the pool, whose ready buffers
            // now hold several megabytes.
            env.Checkpoint();
            env.BeginWrite().Dispose();
            long filled = env.PooledReadyBytes;
            Assert.True(filled > 2 * CommitPipeline.IdleReadyBytes, $"the pool holds {filled} bytes after the burst: the test checks nothing");

            Assert.True(SpinWait.SpinUntil(() => env.PooledReadyBytes <= CommitPipeline.IdleReadyBytes, Patience),
                $"the pool still holds {env.PooledReadyBytes} bytes of ready buffers after commits paused");

            // The parked buffers serve the next burst: their contents are whatever the OS left, so every value is checked.
            Write(env, seed: 2);
            AssertValues(env, seed: 2);
        }
        using var reopened = StorageEnvironment.Open(Options(fileSystem));
        AssertValues(reopened, seed: 2);
        Assert.True(reopened.Check().IsHealthy);
    }

    private static void Write(StorageEnvironment env, int seed)
    {
        for (int first = 0; first < Entries; first += 500)
        {
            using var tx = env.BeginWrite();
            var tree = tx.TryOpenTree("t", out var existing) ? existing : tx.CreateTree("t");
            for (int i = first; i < first + 500; i++) tree.Put(TestData.Key(Scatter(i)), TestData.Value(seed * Entries + i, ValueLength));
            tx.Commit();
        }
    }

    private static void AssertValues(StorageEnvironment env, int seed)
    {
        using var read = env.BeginRead();
        var tree = read.OpenTree("t");
        Assert.Equal(Entries, tree.Count);
        for (int i = 0; i < Entries; i++)
            Assert.Equal(TestData.Value(seed * Entries + i, ValueLength), tree.Get(TestData.Key(Scatter(i))));
    }

    /// <summary>Keys in a scattered order, so that each transaction touches pages all over the tree.</summary>
    private static int Scatter(int i) => (int)((i * 7919L) % Entries);
}
