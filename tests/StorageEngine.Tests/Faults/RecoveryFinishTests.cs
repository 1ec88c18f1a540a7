using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Faults;

/// <summary>
/// An open after a crash replays the journal into the data file and answers at once; syncing the replayed
/// pages and starting the new session happen in the background. Until they are done the crashed session's
/// journal stays the durable copy: a crash or a failed sync in between loses nothing, and a failed sync
/// refuses writes until the environment is reopened.
/// </summary>
public sealed class RecoveryFinishTests
{
    [Fact]
    public void When_syncing_the_replayed_pages_fails_writes_are_refused_and_the_next_open_recovers_everything()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem);
        var crashed = StorageEnvironment.Open(options);
        Commit(crashed, 1, 200);
        crashed.SimulateCrash();
        fileSystem.LosePower(new Random(1));

        fileSystem.Arm(new Fault(FileOperation.Sync, 1, FaultKind.IOError, Sticky: true, Files: Fault.DataFile));
        var recovered = StorageEnvironment.Open(options);
        AssertExactly(recovered, 200);
        var refused = Assert.ThrowsAny<StorageException>(() => Commit(recovered, 201));
        Assert.Contains("reopen", refused.Message, StringComparison.OrdinalIgnoreCase);
        Assert.True(fileSystem.HasFired);

        recovered.SimulateCrash();
        fileSystem.LosePower(new Random(2), reorderWrites: true, scatterTears: true);
        fileSystem.Clear();
        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, 200);
        Commit(reopened, 201, 210);
        AssertExactly(reopened, 210);
        AssertHealthy(reopened);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Commits_after_a_recovered_open_survive_the_next_power_loss(bool waitForTheSync)
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem);
        var crashed = StorageEnvironment.Open(options);
        Commit(crashed, 1, 150);
        crashed.SimulateCrash();
        fileSystem.LosePower(new Random(3), reorderWrites: true, scatterTears: true);

        var recovered = StorageEnvironment.Open(options);
        if (waitForTheSync) recovered.WaitForRecovery();
        Commit(recovered, 151, 170);
        recovered.SimulateCrash();
        fileSystem.LosePower(new Random(4), reorderWrites: true, scatterTears: true);

        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, 170);
        AssertHealthy(reopened);
    }

    [Fact]
    public void A_checkpoint_after_a_recovered_open_retires_the_journal_written_before_the_crash()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem);
        var crashed = StorageEnvironment.Open(options);
        Commit(crashed, 1, 400);
        crashed.SimulateCrash();
        var crashedJournals = JournalFileNames(fileSystem);

        using var recovered = StorageEnvironment.Open(options);
        recovered.Checkpoint();
        Assert.Empty(JournalFileNames(fileSystem).Intersect(crashedJournals));
        Assert.Equal(400, recovered.Header.CheckpointTransactionId);
        AssertExactly(recovered, 400);
    }

    private static List<string> JournalFileNames(FaultyFileSystem fileSystem) =>
        fileSystem.ListFiles("/db").Where(name => Journal.JournalFileNames.TryParse(name, out _)).ToList();
}
