using StorageEngine.Platform;
using Xunit.Abstractions;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Faults;

/// <summary>
/// The sweeps of <see cref="FaultSweepTests"/> commit one transaction at a time, so every journal write holds one
/// record. Here commits are kept in flight together (<see cref="WriteTransaction.CommitAsync"/>), so the journal
/// writes groups, switches files as it grows and the checkpointer prepares spares beside it: each write, sync, file
/// growth and directory change in turn fails (EIO, a short write, bytes landed then EIO, ENOSPC) or the process dies
/// in it, with or without the power going after, and after reopening every acknowledged commit is there, nothing
/// partial, no false corruption report, and the environment checks healthy.
/// </summary>
public sealed class GroupCommitCrashSweepTests(ITestOutputHelper output)
{
    private const int Batches = 16;
    private const int SeedsPerPosition = 3;
    private const int InFlight = 12;

    /// <summary>
    /// Each operation with the journal written through (O_DIRECT); buffered then synced (where O_DIRECT is refused);
    /// with every overflow value written into the data file before its group's journal write; and with checkpoints
    /// in the background.
    /// </summary>
    public static TheoryData<FileOperation, bool, bool, bool> Operations()
    {
        var data = new TheoryData<FileOperation, bool, bool, bool>();
        foreach (var operation in new[] { FileOperation.Write, FileOperation.Sync, FileOperation.Growth, FileOperation.DirectoryChange })
        {
            data.Add(operation, false, false, false);
            data.Add(operation, true, false, false);
            data.Add(operation, false, true, false);
            data.Add(operation, false, false, true);
        }
        return data;
    }

    /// <summary>
    /// Options of the numbered transactions; with <paramref name="backgroundCheckpoints"/>, the checkpointer thread
    /// checkpoints every 32 KiB of journal, beside the commits (where the crash lands in it then varies from run to run).
    /// </summary>
    private static StorageEnvironmentOptions SweepOptions(FaultyFileSystem fileSystem, long? valuesInPlaceFrom, bool backgroundCheckpoints)
    {
        var options = Options(fileSystem, valuesInPlaceFrom: valuesInPlaceFrom);
        if (backgroundCheckpoints) options.CheckpointThreshold = 32 << 10;
        return options;
    }

    [Theory]
    [MemberData(nameof(Operations))]
    public async Task A_crash_at_every_position_among_grouped_commits_keeps_every_acknowledged_commit(FileOperation operation, bool bufferedJournal, bool valuesInPlace,
        bool backgroundCheckpoints)
    {
        long? valuesInPlaceFrom = valuesInPlace ? 1 : null;
        var counting = new FaultyFileSystem(new MemoryFileSystem(), bufferedJournal);
        await Run(SweepOptions(counting, valuesInPlaceFrom, backgroundCheckpoints));
        int count = counting.Count(operation);
        int fired = 0;
        for (int position = 1; position <= count; position++)
        for (int seed = 0; seed < SeedsPerPosition; seed++)
        {
            // The seed decides what of the crashed call lands and what the power loss keeps, tears and reorders.
            var fileSystem = new FaultyFileSystem(new MemoryFileSystem(), bufferedJournal, seed: position * 7 + (int)operation + 1000 * seed);
            fileSystem.Arm(new Fault(operation, position, FaultKind.Crash));
            long acknowledged = await Run(SweepOptions(fileSystem, valuesInPlaceFrom, backgroundCheckpoints));
            if (!fileSystem.HasFired) continue;
            fired++;
            fileSystem.LosePower(new Random(position + 1000 * seed), reorderWrites: true, scatterTears: true);
            AssertReopensWithEveryAcknowledgedCommit(SweepOptions(fileSystem, valuesInPlaceFrom, backgroundCheckpoints), acknowledged,
                $"{operation} {position}, seed {seed} ({fileSystem.LastFault})");
        }
        output.WriteLine($"{operation}: {count} calls, {fired} crashes");
        Assert.True(fired > 0);
    }

    public static TheoryData<FileOperation, FaultKind> Failures => new()
    {
        { FileOperation.Write, FaultKind.IOError },
        { FileOperation.Write, FaultKind.ShortWrite },
        { FileOperation.Write, FaultKind.LandedThenFailed },
        { FileOperation.Write, FaultKind.DiskFull },
        { FileOperation.Sync, FaultKind.IOError },
        { FileOperation.Growth, FaultKind.DiskFull },
        { FileOperation.DirectoryChange, FaultKind.IOError },
    };

    [Theory]
    [MemberData(nameof(Failures))]
    public async Task A_failed_call_at_every_position_among_grouped_commits_keeps_every_acknowledged_commit(FileOperation operation, FaultKind kind)
    {
        var counting = new FaultyFileSystem(new MemoryFileSystem());
        await Run(Options(counting));
        int count = counting.Count(operation);
        int fired = 0;
        for (int position = 1; position <= count; position++)
        {
            foreach (bool powerLoss in new[] { false, true })
            {
                var fileSystem = new FaultyFileSystem(new MemoryFileSystem(), seed: position);
                fileSystem.Arm(new Fault(operation, position, kind));
                long acknowledged = await Run(Options(fileSystem));
                if (!fileSystem.HasFired) continue;
                fired++;
                fileSystem.Clear();
                if (powerLoss) fileSystem.LosePower(new Random(position), reorderWrites: true, scatterTears: true);
                else fileSystem.Memory.SimulateProcessCrash();
                AssertReopensWithEveryAcknowledgedCommit(Options(fileSystem), acknowledged,
                    $"{operation} {kind} {position}, power loss {powerLoss} ({fileSystem.LastFault})");
            }
        }
        output.WriteLine($"{operation} {kind}: {count} calls, {fired} failures");
        Assert.True(fired > 0);
    }

    [Theory]
    [MemberData(nameof(Failures))]
    public async Task In_Lazy_mode_a_failed_call_among_grouped_commits_then_a_process_crash_keeps_every_acknowledged_commit(FileOperation operation, FaultKind kind)
    {
        // Lazy promises what a process crash cannot take (not a power loss): the journal reaches the page cache.
        var counting = new FaultyFileSystem(new MemoryFileSystem());
        await Run(Options(counting, DurabilityMode.Lazy));
        int count = counting.Count(operation);
        int fired = 0;
        for (int position = 1; position <= count; position++)
        {
            var fileSystem = new FaultyFileSystem(new MemoryFileSystem(), seed: position);
            fileSystem.Arm(new Fault(operation, position, kind));
            long acknowledged = await Run(Options(fileSystem, DurabilityMode.Lazy));
            if (!fileSystem.HasFired) continue;
            fired++;
            fileSystem.Clear();
            fileSystem.Memory.SimulateProcessCrash();
            AssertReopensWithEveryAcknowledgedCommit(Options(fileSystem, DurabilityMode.Lazy), acknowledged,
                $"Lazy {operation} {kind} {position} ({fileSystem.LastFault})");
        }
        output.WriteLine($"Lazy {operation} {kind}: {count} calls, {fired} failures");
    }

    /// <summary>The reopen holds a prefix of the transactions that reaches <paramref name="acknowledged"/>, whole, and checks healthy.</summary>
    private static void AssertReopensWithEveryAcknowledgedCommit(StorageEnvironmentOptions options, long acknowledged, string what)
    {
        try
        {
            using var reopened = StorageEnvironment.Open(options);
            long recovered = reopened.LastCommittedTransactionId;
            Assert.True(recovered >= acknowledged, $"{what}: acknowledged {acknowledged}, recovered {recovered}");
            AssertExactly(reopened, recovered);
            AssertHealthy(reopened);
        }
        catch (Exception e) when (e is not Xunit.Sdk.XunitException)
        {
            throw new Xunit.Sdk.XunitException($"{what}: the reopen threw {e}");
        }
    }

    /// <summary>
    /// Commits five transactions one at a time, then batches of commits in flight with a checkpoint half way, until
    /// the run ends or a commit fails; the environment is then abandoned as a dead process leaves it. Returns the
    /// last acknowledged commit.
    /// </summary>
    private static async Task<long> Run(StorageEnvironmentOptions options)
    {
        long acknowledged = 0, next = 1;
        StorageEnvironment environment;
        try
        {
            environment = StorageEnvironment.Open(options);
            for (; next <= 5; next++)
            {
                Commit(environment, next);
                acknowledged = next;
            }
        }
        catch (Exception e) when (e is StorageException or IOException)
        {
            return acknowledged;
        }

        bool failed = false;
        for (int batch = 0; batch < Batches && !failed; batch++)
        {
            var inFlight = new List<(long Number, Task Commit)>();
            try
            {
                for (int i = 0; i < InFlight; i++, next++) inFlight.Add((next, CommitAsync(environment, next).AsTask()));
            }
            catch (Exception e) when (e is StorageException or IOException or TimeoutException)
            {
                failed = true;
            }
            foreach (var (number, commit) in inFlight)
            {
                try
                {
                    await commit;
                    if (!failed) acknowledged = number;
                }
                catch (Exception e) when (e is StorageException or IOException)
                {
                    failed = true;
                }
            }
            if (batch == Batches / 2 && !failed)
            {
                try
                {
                    environment.Checkpoint();
                }
                catch (Exception e) when (e is StorageException or IOException)
                {
                    failed = true;
                }
            }
        }
        environment.SimulateCrash();
        return acknowledged;
    }
}
