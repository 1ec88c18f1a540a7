using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Crash;

/// <summary>One environment, one process: a second process gets a clear exception, never shared access.</summary>
public sealed class SecondProcessTests
{
    [Fact]
    public void Opening_an_environment_another_process_holds_throws_EnvironmentLockedException_and_succeeds_once_it_exits()
    {
        using var directory = new TempDirectory("second-process");
        using (var child = CrashChildProcess.Start([directory.Path]))
        {
            Assert.True(child.WaitForReady(TimeSpan.FromSeconds(30)), "the child never opened the environment");
            Assert.True(child.WaitForCommits(1, TimeSpan.FromSeconds(30)), "the child never committed");

            var e = Assert.Throws<EnvironmentLockedException>(() => StorageEnvironment.Open(directory.Path));
            Assert.Contains("already open", e.Message);
            child.Kill();
        }

        // The lock dies with its process: the environment opens, recovered, with the child's commits.
        using var environment = StorageEnvironment.Open(directory.Path);
        Assert.True(environment.LastCommittedTransactionId >= 1);
        Assert.True(environment.Check().IsHealthy);
    }
}
