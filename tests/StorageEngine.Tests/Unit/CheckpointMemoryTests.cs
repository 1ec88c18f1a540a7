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
    [InlineData(32 * MiB, 768 * MiB, 32 * MiB)]   // from 768 MiB down, a 24th of the memory
    [InlineData(32 * MiB, 192 * MiB, 8 * MiB)]    // what .NET reports in a 256 MiB memory cgroup (75% of it)
    [InlineData(32 * MiB, 48 * MiB, 4 * MiB)]     // never below 4 MiB
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
        var options = MemoryThresholdOnly(1 * MiB);
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

    [Theory]
    [InlineData(1 * MiB, 128 * MiB, 4 * MiB)]          // a small file: never below the floor
    [InlineData(160 * MiB, 128 * MiB, 40 * MiB)]       // a quarter of the file
    [InlineData(4L << 30, 128 * MiB, 128 * MiB)]       // a large one: at most the memory threshold
    [InlineData(160 * MiB, 1 * MiB, 1 * MiB)]          // a threshold someone chose lower is kept
    public void Freed_pages_ask_for_a_checkpoint_at_a_quarter_of_the_file(long fileBytes, long memoryThreshold, long expected)
    {
        Assert.Equal(expected, Checkpointer.FreedTrigger(fileBytes, memoryThreshold));
    }

    [Fact]
    public void Rewriting_an_environment_whole_grows_its_file_by_a_fraction_not_by_the_memory_threshold()
    {
        var options = MemoryThresholdOnly(128 * MiB);
        using var env = StorageEnvironment.Open(options);
        const int keys = 13_000;
        // 13,000 pages of values, one 3,000-byte value per page, checkpointed: rewriting each frees a page that only
        // the next checkpoint makes reusable.
        for (int round = 0; round < 3; round++)
        {
            for (int first = 0; first < keys; first += 100)
            {
                using var tx = env.BeginWrite();
                var tree = round == 0 && first == 0 ? tx.CreateTree("t") : tx.OpenTree("t");
                for (int i = first; i < first + 100; i++) tree.Put(TestData.Key(i), TestData.Value(i + round, 3_000));
                tx.Commit();
            }
            if (round == 0) env.Checkpoint();
        }
        var statistics = env.GetStatistics();
        // 13,000 pages (51 MiB) in use, rewritten twice. With the memory threshold alone no checkpoint came and the file
        // grew to 155 MiB; with freed pages asking at a quarter of the file it reached 84 MiB (the writer runs on
        // during checkpoints).
        Assert.True(statistics.DataFileBytes < 120 * MiB, $"The data file grew to {statistics.DataFileBytes / MiB} MiB for 51 MiB of pages in use.");
    }

    /// <summary>Options on a memory file system where only the memory threshold (or freed pages) can bring a checkpoint on.</summary>
    private static StorageEnvironmentOptions MemoryThresholdOnly(long memoryThreshold)
    {
        var options = TestData.SafeOptions(new MemoryFileSystem());
        options.CheckpointThreshold = 1L << 30;
        options.CheckpointInterval = TimeSpan.FromHours(1);
        options.CheckpointMemoryThreshold = memoryThreshold;
        return options;
    }
}
