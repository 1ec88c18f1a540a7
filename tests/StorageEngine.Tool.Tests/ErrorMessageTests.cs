namespace StorageEngine.Tool.Tests;

public sealed class ErrorMessageTests : ToolTestBase
{
    public static TheoryData<string> ReadingCommands => new() { "info", "stats", "check", "dump" };

    [Theory]
    [MemberData(nameof(ReadingCommands))]
    public void A_path_that_does_not_exist_is_reported_and_not_created(string command)
    {
        Run(command, PathOf("missing")).AssertCleanFailure("does not exist");
        Assert.False(Directory.Exists(PathOf("missing")));
    }

    [Fact]
    public void A_directory_without_a_data_file_is_not_an_environment()
    {
        Directory.CreateDirectory(PathOf("plain"));
        Run("info", PathOf("plain")).AssertCleanFailure("is not a StorageEngine environment: it has no data.sedb file");
        Assert.False(File.Exists(PathOf("plain/data.sedb")));
    }

    [Fact]
    public void A_foreign_file_named_like_the_data_file_is_reported_as_unreadable()
    {
        Directory.CreateDirectory(PathOf("foreign"));
        var junk = new byte[64 * 1024];
        new Random(3).NextBytes(junk);
        File.WriteAllBytes(PathOf("foreign/data.sedb"), junk);

        Run("info", PathOf("foreign")).AssertCleanFailure("does not hold a readable StorageEngine environment");
        Run("backup", PathOf("foreign"), PathOf("out")).AssertCleanFailure("does not hold a readable StorageEngine environment");
        Assert.False(Directory.Exists(PathOf("out")));
    }

    [Fact]
    public void An_empty_data_file_is_not_silently_turned_into_a_new_environment()
    {
        Directory.CreateDirectory(PathOf("hollow"));
        File.WriteAllBytes(PathOf("hollow/data.sedb"), []);
        Run("dump", PathOf("hollow")).AssertCleanFailure("is empty");
        Assert.Equal(0, new FileInfo(PathOf("hollow/data.sedb")).Length);
    }

    [Fact]
    public void A_plain_file_is_not_an_environment_but_the_data_file_itself_is_accepted()
    {
        string env = CreateSampleEnvironment("env");
        File.WriteAllText(PathOf("notes.txt"), "hello");
        Run("info", PathOf("notes.txt")).AssertCleanFailure("is a file; give the directory of an environment");
        Run("info", Path.Combine(env, "data.sedb")).AssertSuccess();
    }

    [Fact]
    public void An_environment_open_elsewhere_is_reported_as_in_use()
    {
        string path = CreateSampleEnvironment("env");
        using var env = StorageEnvironment.Open(path);
        Run("info", path).AssertCleanFailure("is in use");
        Run("compact", path, PathOf("copy")).AssertCleanFailure("is in use");
    }

    [Fact]
    public void Unknown_commands_and_missing_arguments_fail_with_usage_help()
    {
        var result = Run("frobnicate");
        Assert.NotEqual(0, result.ExitCode);
        Assert.DoesNotContain("   at ", result.Error);
        Assert.NotEqual(0, Run("compact", PathOf("x")).ExitCode);
        Assert.Contains("Commands:", Run("--help").AssertSuccess().Output);
    }
}
