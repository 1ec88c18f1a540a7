using StorageEngine.Platform;
using StorageEngine.Tests.Durability;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Faults;

/// <summary>
/// Recovery after power losses that reorder unsynced writes and leave half-written 4 KB pages: in Safe mode it
/// returns to the last acknowledged commit (and a commit cut short by the crash is whole or absent); in Lazy mode
/// to a prefix of the commits no older than the last checkpoint.
/// </summary>
public sealed class PowerLossReorderingTests
{
    private static readonly int Cycles = Environment.GetEnvironmentVariable("STORAGEENGINE_FAULT_SWEEP") == "full" ? 40 : 6;

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void Safe_recovery_returns_to_the_last_acknowledged_commit(int seed)
    {
        var random = new Random(seed);
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem(), bufferedJournal: seed == 3, seed: seed);
        int keptInDoubt = 0;
        CrashCycles.Run(Options(fileSystem), Cycles,
            work: (environment, committed) =>
            {
                int count = random.Next(10, 60);
                for (int i = 0; i < count; i++)
                {
                    Commit(environment, ++committed);
                    if (random.Next(8) == 0) environment.Checkpoint();
                }

                // The process dies in a later write (of the next commit, or the checkpoint after it).
                fileSystem.Arm(new Fault(FileOperation.Write, random.Next(1, 4), FaultKind.Crash));
                try
                {
                    Commit(environment, committed + 1);
                    environment.Checkpoint();
                    Commit(environment, committed + 2);
                }
                catch (Exception e) when (e is IOException or StorageException)
                {
                }
                return committed;
            },
            afterCrash: () => fileSystem.LosePower(random, tearWrites: true, reorderWrites: true, scatterTears: random.Next(2) == 0),
            reopen: (environment, committed) =>
            {
                long recovered = environment.LastCommittedTransactionId;
                Assert.InRange(recovered, committed, committed + 2);
                if (recovered > committed) keptInDoubt++;
                AssertExactly(environment, recovered);
                return recovered;
            });
        Assert.True(keptInDoubt > 0 || Cycles < 6, "no crash came after a commit's journal record");
    }

    [Theory]
    [InlineData(11)]
    [InlineData(12)]
    public void Lazy_recovery_returns_to_a_prefix_no_older_than_the_last_checkpoint(int seed) =>
        Durability.PowerLossTests.LazyPowerLossCycles(seed, Cycles, minCommits: 5, maxCommits: 40, (fileSystem, random) =>
            fileSystem.SimulatePowerLoss(random, tearWrites: true, reorderWrites: true, scatterTears: random.Next(2) == 0));
}
