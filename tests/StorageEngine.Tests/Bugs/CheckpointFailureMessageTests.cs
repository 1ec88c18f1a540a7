using StorageEngine.Platform;
using StorageEngine.Tests.Faults;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// After a checkpoint hit a full disk, the next commit said "An earlier commit failed" although no commit had
/// failed. The refusal now names what failed, with its cause.
/// </summary>
public sealed class CheckpointFailureMessageTests
{
    [Fact]
    public void After_a_checkpoint_fails_on_a_full_disk_the_refused_commit_says_the_checkpoint_failed_and_why()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 50);
        environment.PrepareJournal();
        fileSystem.Arm(new Fault(FileOperation.Write, 1, FaultKind.DiskFull, Files: Fault.DataFile));
        var checkpoint = Assert.ThrowsAny<IOException>(() => environment.Checkpoint());
        fileSystem.Clear();

        var refused = Assert.Throws<StorageException>(() => Commit(environment, 51));
        Assert.StartsWith($"A checkpoint failed ({checkpoint.Message})", refused.Message);
        Assert.DoesNotContain("commit failed", refused.Message);
        Assert.Contains("Reopen", refused.Message);
        Assert.Same(checkpoint, refused.InnerException);

        environment.SimulateCrash();
        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, 50);
    }

    [Fact]
    public void After_a_journal_write_fails_the_refused_commit_says_the_journal_write_failed()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 5);
        fileSystem.Arm(new Fault(FileOperation.Write, 1, FaultKind.DiskFull, Files: Fault.JournalFile));
        Assert.Throws<StorageException>(() => Commit(environment, 6));
        fileSystem.Clear();

        var refused = Assert.Throws<StorageException>(() => environment.BeginWrite().Dispose());
        Assert.StartsWith("A commit's journal write failed (", refused.Message);
        environment.SimulateCrash();
    }
}
