using StorageEngine.Platform;
using StorageEngine.Transactions;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// <see cref="StorageEnvironmentOptions.CheckpointMemoryThreshold"/>: pages waiting in memory trigger a checkpoint
/// at their own threshold, apart from the journal's, and its default follows the memory the process may use.
/// </summary>
public sealed class CheckpointMemoryTests
{
    private const long MiB = 1L << 20;

    [Theory]
    [InlineData(32 * MiB, 24L << 30, 128 * MiB)]  // a large machine: capped at 128 MiB
    [InlineData(32 * MiB, 8L << 30, 64 * MiB)]    // a 128th of 8 GiB
    [InlineData(32 * MiB, 256 * MiB, 32 * MiB)]   // a container limited to 256 MiB: never below the journal threshold
    [InlineData(32 * MiB, 0, 32 * MiB)]           // memory unknown
    [InlineData(1 * MiB, 24L << 30, 1 * MiB)]     // a threshold someone chose is kept
    [InlineData(512 * MiB, 24L << 30, 512 * MiB)]
    [InlineData(long.MaxValue, 24L << 30, long.MaxValue)]
    public void The_default_follows_memory_only_with_the_default_journal_threshold(long journalThreshold, long memory, long expected)
    {
        Assert.Equal(expected, CheckpointMemory.DefaultFor(journalThreshold, memory));
    }

    [Fact]
    public void A_set_threshold_is_used_as_it_is_and_one_not_positive_is_refused()
    {
        var options = new StorageEnvironmentOptions { CheckpointThreshold = 32 * MiB, CheckpointMemoryThreshold = 3 * MiB };
        Assert.Equal(3 * MiB, CheckpointMemory.ThresholdFor(options));

        options = TestData.SafeOptions(new MemoryFileSystem());
        options.CheckpointMemoryThreshold = 0;
        var refused = Assert.Throws<ArgumentOutOfRangeException>(() => StorageEnvironment.Open(options));
        Assert.Contains("CheckpointMemoryThreshold", refused.Message);
    }

    [Fact]
    public void Pages_waiting_past_the_memory_threshold_bring_a_checkpoint_on_long_before_the_journal_threshold()
    {
        var options = TestData.SafeOptions(new MemoryFileSystem());
        options.CheckpointThreshold = 1L << 30;
        options.CheckpointInterval = TimeSpan.FromHours(1);
        options.CheckpointMemoryThreshold = 1 * MiB;
        using var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t");
            tx.Commit();
        }
        long checkpointed = env.GetStatistics().LastCheckpointTransactionId;
        // Commits keep going (a pause would bring the idle checkpoint on): about 2 MiB of pages in all.
        var waited = System.Diagnostics.Stopwatch.StartNew();
        for (int i = 0; env.GetStatistics().LastCheckpointTransactionId == checkpointed; i++)
        {
            Assert.True(waited.Elapsed < TimeSpan.FromSeconds(30), "no checkpoint came");
            if (i >= 64)
            {
                // Enough pages are waiting; the checkpoint is on its way.
                Thread.Sleep(1);
                continue;
            }
            using var tx = env.BeginWrite();
            var tree = tx.OpenTree("t");
            for (int j = 0; j < 8; j++) tree.Put(TestData.Key(i * 8 + j), TestData.Value(i, 3_000));
            tx.Commit();
        }
        Assert.True(env.GetStatistics().JournalBytesWritten < options.CheckpointThreshold);
    }
}
