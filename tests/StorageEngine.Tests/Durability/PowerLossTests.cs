using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// Power loss after commits that returned: in Safe mode every one of them is there after reopening, whatever
/// happened to the writes that were not synced, and wherever a checkpoint or a commit was cut short. In Lazy
/// mode a process crash loses nothing and power loss loses only a tail of whole transactions.
/// </summary>
public sealed class PowerLossTests
{
    public static TheoryData<PowerLoss, int> Losses => new()
    {
        { PowerLoss.UnsyncedWritesDropped, 1 },
        { PowerLoss.UnsyncedWritesSurviveAtRandom, 2 },
        { PowerLoss.UnsyncedWritesSurviveAtRandom, 3 },
        { PowerLoss.UnsyncedWritesSurviveAtRandomAndTear, 4 },
        { PowerLoss.UnsyncedWritesSurviveAtRandomAndTear, 5 },
    };

    [Theory]
    [MemberData(nameof(Losses))]
    public void Every_safe_commit_survives_repeated_power_loss(PowerLoss loss, int seed)
    {
        var random = new Random(seed);
        var fileSystem = new MemoryFileSystem();
        CrashCycles.Run(Options(fileSystem), cycles: 4,
            work: (environment, committed) =>
            {
                long last = committed + random.Next(20, 80);
                Commit(environment, committed + 1, last);
                return last;
            },
            afterCrash: () => LosePower(fileSystem, loss, random));
    }

    [Theory]
    [MemberData(nameof(Losses))]
    public void Every_safe_commit_survives_power_loss_with_checkpoints_at_random_points(PowerLoss loss, int seed) =>
        SafeCommitsWithCheckpointsAtRandomPoints(loss, seed, valuesInPlaceFrom: null);

    /// <summary>
    /// Cycles of Safe commits with checkpoints at random points, each ended by a crash and <paramref name="loss"/>;
    /// <paramref name="valuesInPlaceFrom"/> as in <see cref="NumberedTransactions.Options"/>.
    /// </summary>
    internal static void SafeCommitsWithCheckpointsAtRandomPoints(PowerLoss loss, int seed, long? valuesInPlaceFrom)
    {
        var random = new Random(seed);
        var fileSystem = new MemoryFileSystem();
        CrashCycles.Run(Options(fileSystem, valuesInPlaceFrom: valuesInPlaceFrom), cycles: 5,
            work: (environment, committed) =>
            {
                int count = random.Next(20, 120);
                for (int i = 0; i < count; i++)
                {
                    Commit(environment, ++committed);
                    if (random.Next(10) == 0) environment.Checkpoint();
                }
                return committed;
            },
            afterCrash: () => LosePower(fileSystem, loss, random));
    }

    [Theory]
    [InlineData(11)]
    [InlineData(12)]
    [InlineData(13)]
    public void Power_loss_partway_through_a_checkpoint_keeps_every_commit(int seed)
    {
        var random = new Random(seed);
        var memory = new MemoryFileSystem();
        var fileSystem = new CrashingFileSystem(memory);
        int crashedInCheckpoint = 0;
        CrashCycles.Run(Options(fileSystem), cycles: 15,
            work: (environment, committed) =>
            {
                long last = committed + random.Next(5, 40);
                Commit(environment, committed + 1, last);

                // A checkpoint syncs the data file, writes a header and syncs it, then recycles journal files;
                // the process dies before one of those steps (or, with a large allowance, after all of them).
                fileSystem.CrashAfter(random.Next(0, 8), countThisThreadOnly: true);
                try
                {
                    environment.Checkpoint();
                }
                catch (IOException)
                {
                }
                if (fileSystem.HasCrashed) crashedInCheckpoint++;
                return last;
            },
            afterCrash: () =>
            {
                fileSystem.Disarm();
                LosePower(memory, (PowerLoss)random.Next(3), random);
            });
        Assert.True(crashedInCheckpoint > 0, "no checkpoint was interrupted");
    }

    [Theory]
    [InlineData(21)]
    [InlineData(22)]
    [InlineData(23)]
    public void A_commit_cut_short_by_a_crash_is_wholly_present_or_wholly_absent(int seed)
    {
        var random = new Random(seed);
        var memory = new MemoryFileSystem();
        var fileSystem = new CrashingFileSystem(memory);
        int checkpointCutShort = 0;
        int cutShortAndDropped = 0;
        bool returned = false;
        // 40 cycles: at each the crash point is drawn from 0 to 4 changes, and both kinds of cut below must occur at
        // least once; with 20, one run under qemu met no commit cut short before its journal record.
        CrashCycles.Run(Options(fileSystem), cycles: 40,
            work: (environment, committed) =>
            {
                // The end of a recovery runs in the background; its writes must not take the crash points meant for
                // the commit below, or how many cycles cut a commit short depends on thread timing.
                environment.WaitForRecovery();
                long last = committed + random.Next(0, 15);
                Commit(environment, committed + 1, last);

                // The commit writes its journal record (growing the data file now and then), then a checkpoint
                // writes its pages into the data file, syncs and writes the header; the process dies before one of
                // those writes.
                fileSystem.CrashAfter(random.Next(0, 5), countThisThreadOnly: true);
                returned = false;
                try
                {
                    Commit(environment, last + 1);
                    returned = true;
                    environment.Checkpoint();
                }
                catch (Exception e) when (e is IOException || e is StorageException)
                {
                    if (returned) checkpointCutShort++;
                }
                return last;
            },
            afterCrash: () =>
            {
                fileSystem.Disarm();
                LosePower(memory, (PowerLoss)random.Next(3), random);
            },
            reopen: (environment, committed) =>
            {
                long recovered = environment.LastCommittedTransactionId;
                if (returned) Assert.Equal(committed + 1, recovered);
                else
                {
                    Assert.InRange(recovered, committed, committed + 1);
                    if (recovered == committed) cutShortAndDropped++;
                }
                AssertExactly(environment, recovered);
                return recovered;
            });
        // Cut short before its journal record was written a commit is dropped; one that returned survives a
        // checkpoint cut short after it.
        Assert.True(cutShortAndDropped > 0, "no commit was cut short before its journal record");
        Assert.True(checkpointCutShort > 0, "no checkpoint was cut short");
    }

    [Theory]
    [InlineData(41)]
    [InlineData(42)]
    [InlineData(43)]
    public void Power_loss_partway_through_recovery_keeps_every_commit(int seed)
    {
        var random = new Random(seed);
        var memory = new MemoryFileSystem();
        var fileSystem = new CrashingFileSystem(memory);
        var options = Options(fileSystem);
        int interrupted = 0;
        CrashCycles.Run(options, cycles: 10,
            work: (environment, committed) =>
            {
                long last = committed + random.Next(10, 60);
                Commit(environment, committed + 1, last);
                return last;
            },
            afterCrash: () =>
            {
                LosePower(memory, (PowerLoss)random.Next(3), random);

                // Recovery writes the replayed pages, syncs, writes a checkpoint header and recycles journal files;
                // the process dies again somewhere in there, and the power goes too.
                fileSystem.CrashAfter(random.Next(0, 80));
                try
                {
                    StorageEnvironment.Open(options).SimulateCrash();
                }
                catch (IOException)
                {
                    interrupted++;
                }
                fileSystem.Disarm();
                LosePower(memory, (PowerLoss)random.Next(3), random);
            });
        Assert.True(interrupted > 0, "no recovery was interrupted");
    }

    [Theory]
    [InlineData(51)]
    [InlineData(52)]
    public void Power_loss_while_a_clean_reopen_starts_its_session_keeps_every_commit(int seed)
    {
        // A clean reopen answers reads at once and starts its session (the spare journal file renamed into place,
        // the header naming the session, each synced) in the background or in the first commit; the process dies
        // at each of those steps in turn, then the power goes.
        var random = new Random(seed);
        var memory = new MemoryFileSystem();
        var fileSystem = new CrashingFileSystem(memory);
        var options = Options(fileSystem);
        using (var first = StorageEnvironment.Open(options)) Commit(first, 1, 30);
        long committed = 30;
        int interrupted = 0;
        for (int crashAfter = 0; crashAfter < 8; crashAfter++)
        {
            fileSystem.CrashAfter(crashAfter);
            var environment = StorageEnvironment.Open(options);
            try
            {
                AssertExactly(environment, committed);
                Commit(environment, committed + 1);
                committed++;
            }
            catch (Exception e) when (e is IOException or StorageException)
            {
                interrupted++;
            }
            environment.SimulateCrash();
            fileSystem.Disarm();
            LosePower(memory, (PowerLoss)random.Next(3), random);

            using var reopened = StorageEnvironment.Open(options);
            // A commit that did not return may or may not have reached the journal.
            Assert.InRange(reopened.LastCommittedTransactionId, committed, committed + 1);
            committed = reopened.LastCommittedTransactionId;
            AssertExactly(reopened, committed);
            AssertHealthy(reopened);
        }
        Assert.True(interrupted > 0, "no session start was interrupted");
    }

    [Fact]
    public void Every_lazy_commit_survives_a_process_crash()
    {
        var fileSystem = new MemoryFileSystem();
        CrashCycles.Run(Options(fileSystem, DurabilityMode.Lazy), cycles: 3,
            work: (environment, committed) =>
            {
                Commit(environment, committed + 1, committed + 60);
                environment.Checkpoint();
                Commit(environment, committed + 61, committed + 100);
                return committed + 100;
            },
            afterCrash: fileSystem.SimulateProcessCrash);
    }

    [Theory]
    [InlineData(31)]
    [InlineData(32)]
    public void Lazy_power_loss_that_drops_every_unsynced_write_loses_only_the_commits_after_the_last_checkpoint(int seed) =>
        LazyPowerLossLosesOnlyATailOfWholeTransactions(PowerLoss.UnsyncedWritesDropped, seed);

    /// <remarks>
    /// Unsynced journal and data-file writes reach the disk in any order, so after a power loss in Lazy mode a
    /// lost record can sit before records that survived, and the data file can hold bitmap pages of lost
    /// transactions. Recovery ends the journal at the first damaged record of a Lazy session and rebuilds the
    /// free-space map from the trees.
    /// </remarks>
    [Theory]
    [InlineData(PowerLoss.UnsyncedWritesSurviveAtRandom, 2)]
    [InlineData(PowerLoss.UnsyncedWritesSurviveAtRandomAndTear, 4)]
    [InlineData(PowerLoss.UnsyncedWritesSurviveAtRandomAndTear, 5)]
    public void Lazy_power_loss_with_unsynced_writes_surviving_out_of_order_loses_only_a_tail_of_whole_transactions(PowerLoss loss, int seed) =>
        LazyPowerLossLosesOnlyATailOfWholeTransactions(loss, seed);

    /// <summary>Lazy commits after the last checkpoint may be lost to a power loss, but only as a tail of whole transactions.</summary>
    private static void LazyPowerLossLosesOnlyATailOfWholeTransactions(PowerLoss loss, int seed) =>
        LazyPowerLossCycles(seed, cycles: 4, minCommits: 10, maxCommits: 50, (fileSystem, random) => LosePower(fileSystem, loss, random));

    /// <summary>
    /// Cycles of Lazy commits, a checkpoint, more commits and a power loss (<paramref name="losePower"/>): each
    /// reopen must return to a prefix of whole transactions no older than the checkpoint.
    /// </summary>
    internal static void LazyPowerLossCycles(int seed, int cycles, int minCommits, int maxCommits, Action<MemoryFileSystem, Random> losePower)
    {
        var random = new Random(seed);
        var fileSystem = new MemoryFileSystem();
        long checkpointed = 0;
        CrashCycles.Run(Options(fileSystem, DurabilityMode.Lazy), cycles,
            work: (environment, committed) =>
            {
                checkpointed = committed + random.Next(minCommits, maxCommits);
                Commit(environment, committed + 1, checkpointed);
                environment.Checkpoint();
                long last = checkpointed + random.Next(1, maxCommits);
                Commit(environment, checkpointed + 1, last);
                return last;
            },
            afterCrash: () => losePower(fileSystem, random),
            reopen: (environment, last) =>
            {
                long recovered = environment.LastCommittedTransactionId;
                Assert.InRange(recovered, checkpointed, last);
                AssertExactly(environment, recovered);
                AssertHealthy(environment);
                return recovered;
            });
    }
}
