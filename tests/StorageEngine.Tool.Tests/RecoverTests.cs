namespace StorageEngine.Tool.Tests;

public sealed class RecoverTests : ToolTestBase
{
    [Fact]
    public void Recover_replays_a_crashed_environment_so_that_the_read_only_commands_can_inspect_it()
    {
        string path = CreateEnvironmentNeedingRecovery("crashed");
        Run("info", path).AssertCleanFailure("storageengine recover");

        var result = Run("recover", path).AssertSuccess();

        Assert.Contains("Recovered", result.Output);
        Assert.Contains("replayed up to transaction", result.Output);
        Assert.Contains("Trees         1, 1 entries", Run("info", path).AssertSuccess().Output);
        Run("check", path).AssertSuccess();
        Assert.Contains("\"key\":\"k\",\"value\":\"v\"", Run("dump", path, "-e", "text").AssertSuccess().Output);
    }

    [Fact]
    public void Recovering_a_cleanly_closed_environment_changes_nothing_and_says_so()
    {
        string path = CreateSampleEnvironment("clean");
        var before = Contents(path);

        Assert.Contains("Nothing to recover", Run("recover", path).AssertSuccess().Output);
        Assert.Equal(before, Contents(path));
    }

    [Fact]
    public void Recover_refuses_what_is_not_an_environment_and_one_in_use()
    {
        Run("recover", PathOf("missing")).AssertCleanFailure("does not exist");
        string path = CreateSampleEnvironment("busy");
        using var env = StorageEnvironment.Open(path);
        Run("recover", path).AssertCleanFailure("is in use");
    }
}
