using System.Diagnostics;
using StorageEngine.Journal;
using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// Checkpoints let the journal be recycled: with small journal files the number of them stays bounded however
/// many commits there are, and crashes among recycled files (which still hold old records) recover everything.
/// </summary>
public sealed class CheckpointTests
{
    private const int MaxJournalFiles = 8;
    private const int Transactions = 3000;

    [Fact]
    public void Explicit_checkpoints_keep_the_number_of_journal_files_bounded_and_recovery_complete()
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        int most = 0;
        for (long number = 1; number <= Transactions; number++)
        {
            Commit(environment, number);
            if (number % 50 == 0) environment.Checkpoint();
            most = Math.Max(most, CountJournalFiles(fileSystem));
            Assert.True(most <= MaxJournalFiles, $"{most} journal files after transaction {number}: {string.Join(", ", fileSystem.ListFiles("/db"))}");
            if (number % 700 == 0)
            {
                // Crash among recycled journal files, whose old records must read as the end of the journal.
                environment.SimulateCrash();
                fileSystem.SimulatePowerLoss(new Random((int)number), tearWrites: true);
                environment = StorageEnvironment.Open(options);
                AssertExactly(environment, number);
            }
        }
        AssertJournalWasRecycled(fileSystem);

        environment.SimulateCrash();
        fileSystem.SimulatePowerLoss();
        using (var reopened = StorageEnvironment.Open(options))
        {
            AssertExactly(reopened, Transactions);
            AssertHealthy(reopened);
        }
        Assert.True(CountJournalFiles(fileSystem) <= MaxJournalFiles);
    }

    [Fact]
    public void Background_checkpoints_keep_the_number_of_journal_files_bounded_and_recovery_complete()
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        options.CheckpointThreshold = 256 << 10;
        options.CheckpointInterval = TimeSpan.FromSeconds(1);
        var environment = StorageEnvironment.Open(options);
        int most = 0;
        for (long number = 1; number <= Transactions; number++)
        {
            Commit(environment, number);
            most = Math.Max(most, CountJournalFiles(fileSystem));
            if (number % 250 == 0)
            {
                // Commits do not wait for the background checkpointer, so on a loaded machine it may fall behind
                // for a while; the bound is that it catches up without further commits.
                var waited = Stopwatch.StartNew();
                while (CountJournalFiles(fileSystem) > MaxJournalFiles && waited.Elapsed < TimeSpan.FromSeconds(60)) Thread.Sleep(10);
                Assert.True(CountJournalFiles(fileSystem) <= MaxJournalFiles,
                    $"{CountJournalFiles(fileSystem)} journal files after transaction {number}: {string.Join(", ", fileSystem.ListFiles("/db"))}");
            }
        }
        // The last commits may have taken the spare file before the checkpointer, behind them, retired another.
        Assert.True(SpinWait.SpinUntil(() => fileSystem.ListFiles("/db").Any(JournalFileNames.IsFree), TimeSpan.FromSeconds(60)),
            $"no journal file was free a minute after the last commit: {string.Join(", ", fileSystem.ListFiles("/db"))}");
        AssertJournalWasRecycled(fileSystem);

        environment.SimulateCrash();
        fileSystem.SimulatePowerLoss(new Random(7), tearWrites: true);
        using (var reopened = StorageEnvironment.Open(options))
        {
            AssertExactly(reopened, Transactions);
            AssertHealthy(reopened);
        }
        // A clean close checkpoints, and the next open recycles everything before it.
        using (var reopened = StorageEnvironment.Open(options)) AssertExactly(reopened, Transactions);
        Assert.True(CountJournalFiles(fileSystem) <= MaxJournalFiles, $"{most} journal files at most during the run");
    }

    /// <summary>Journal files in use plus those waiting for reuse.</summary>
    [Fact]
    public void A_clean_close_leaves_one_spare_journal_file_which_the_next_open_reuses()
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        using (var environment = StorageEnvironment.Open(options))
        {
            // 1 MiB journal files: the checkpoint leaves spares, and the commits after it fill several files.
            for (long number = 1; number <= 400; number++)
            {
                Commit(environment, number);
                if (number == 100) environment.Checkpoint();
            }
            environment.PrepareJournal();
            Assert.True(CountJournalFiles(fileSystem) >= 3, string.Join(", ", fileSystem.ListFiles("/db")));
        }
        var closed = fileSystem.ListFiles("/db").Where(name => name.StartsWith("journal", StringComparison.Ordinal)).ToList();
        Assert.True(closed.Count == 1 && JournalFileNames.IsFree(closed[0]), $"after a clean close: {string.Join(", ", closed)}");

        using (var reopened = StorageEnvironment.Open(options))
        {
            AssertExactly(reopened, 400);
            // The spare goes into place when the new session starts, in the background after the open.
            reopened.WaitForRecovery();
            var open = fileSystem.ListFiles("/db").Where(name => name.StartsWith("journal", StringComparison.Ordinal)).ToList();
            Assert.True(open.Count == 1 && JournalFileNames.TryParse(open[0], out _), $"after reopening: {string.Join(", ", open)}");
            Commit(reopened, 401);
        }
        using (var again = StorageEnvironment.Open(options)) AssertExactly(again, 401);
    }

    private static int CountJournalFiles(MemoryFileSystem fileSystem) =>
        fileSystem.ListFiles("/db").Count(n => JournalFileNames.TryParse(n, out _) || JournalFileNames.IsFree(n));

    /// <summary>The bound means something only if the journal went through many more files than it keeps.</summary>
    private static void AssertJournalWasRecycled(MemoryFileSystem fileSystem)
    {
        var names = fileSystem.ListFiles("/db");
        long highest = names.Select(n => JournalFileNames.TryParse(n, out long number) ? number : 0).Max();
        Assert.True(highest > 2 * MaxJournalFiles, $"the journal only reached file {highest}");
        Assert.Contains(names, JournalFileNames.IsFree);
    }
}
