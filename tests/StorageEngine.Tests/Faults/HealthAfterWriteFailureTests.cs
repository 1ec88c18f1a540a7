using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Faults;

/// <summary>
/// <see cref="StorageEnvironment.GetHealth"/> tells a health check what a failed journal write did: the environment
/// takes no more writes (and says why) until it is reopened, while it stays open for reads.
/// </summary>
public sealed class HealthAfterWriteFailureTests
{
    [Fact]
    public void A_failed_journal_write_shows_in_the_health_until_the_environment_is_reopened()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 5);
        Assert.True(environment.GetHealth().AcceptsWrites);
        Assert.Null(environment.GetHealth().WriteFailure);
        long acknowledged = environment.LastCommittedTransactionId;

        fileSystem.Arm(new Fault(FileOperation.Write, 1, FaultKind.DiskFull, Files: Fault.JournalFile));
        Assert.Throws<StorageException>(() => Commit(environment, 6));
        fileSystem.Clear();

        var failed = environment.GetHealth();
        Assert.True(failed.IsOpen);
        Assert.False(failed.AcceptsWrites);
        Assert.False(string.IsNullOrWhiteSpace(failed.WriteFailure));
        Assert.Equal(acknowledged, failed.LastCommittedTransactionId);
        environment.Dispose();
        Assert.False(environment.GetHealth().IsOpen);

        using var reopened = StorageEnvironment.Open(options);
        Assert.True(reopened.GetHealth().AcceptsWrites);
    }
}
