using System.Security.Cryptography;

namespace StorageEngine.Tool.Tests;

public sealed class ReadOnlyCommandTests : ToolTestBase
{
    private static SortedDictionary<string, string> FileHashes(string directory)
    {
        var hashes = new SortedDictionary<string, string>(StringComparer.Ordinal);
        foreach (var file in Directory.GetFiles(directory))
            hashes[Path.GetFileName(file)] = Convert.ToHexString(SHA256.HashData(File.ReadAllBytes(file)));
        return hashes;
    }

    [Fact]
    public void Info_stats_check_and_dump_change_no_byte_of_the_environment()
    {
        string path = CreateSampleEnvironment("env");
        var before = FileHashes(path);

        Run("info", path).AssertSuccess();
        Run("info", path, "--json").AssertSuccess();
        Run("stats", path).AssertSuccess();
        Run("check", path).AssertSuccess();
        Run("dump", path, "--output", PathOf("dump.jsonl")).AssertSuccess();

        Assert.Equal(before, FileHashes(path));
    }

    [Fact]
    public void Reading_commands_can_run_while_another_reads_the_same_environment()
    {
        string path = CreateSampleEnvironment("env");
        using var reader = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = path, ReadOnly = true });
        Assert.Contains("Trees         4", Run("info", path).AssertSuccess().Output);
        Run("load", path, "--input", "/dev/null").AssertCleanFailure("is in use");
    }

    [Fact]
    public void Reading_commands_refuse_an_environment_that_needs_recovery_and_say_how_to_recover_it()
    {
        string path = CreateEnvironmentNeedingRecovery("crashed");
        var before = FileHashes(path);

        foreach (var command in new[] { "info", "stats", "check", "dump" })
            Run(command, path).AssertCleanFailure("needs recovery").AssertCleanFailure("storageengine recover");
        Assert.Equal(before, FileHashes(path));

        Run("recover", path).AssertSuccess();
        Assert.Contains("Trees         1, 1 entries", Run("info", path).AssertSuccess().Output);
    }
}
