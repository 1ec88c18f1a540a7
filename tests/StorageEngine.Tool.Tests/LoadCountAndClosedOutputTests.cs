namespace StorageEngine.Tool.Tests;

public sealed class LoadCountAndClosedOutputTests : ToolTestBase
{
    [Fact]
    public void Load_counts_the_entries_the_trees_gained_not_the_lines_it_read()
    {
        string env = CreateSampleEnvironment("env");
        var input = """
            {"tree":"users","key":"user00000","value":"replaced"}
            {"tree":"fresh","key":"a","value":"1"}
            {"tree":"fresh","key":"a","value":"2"}
            {"tree":"fresh","key":"b","value":"3"}

            """;

        var result = RunWithInput(input, "load", env, "-e", "text").AssertSuccess();

        Assert.Contains("Loaded 2 new entries into 2 trees", result.Output);
        Assert.Contains("4 entries read, 2 of them replaced the value of a key already present", result.Output);
    }

    [Fact]
    public void Dump_into_an_output_closed_early_says_how_far_it_got_instead_of_claiming_every_entry()
    {
        string env = CreateSampleEnvironment("env", textEntries: 5_000);

        var result = RunWithStreams(new ClosingWriter(4096), null, null, "dump", env);

        Assert.Equal(141, result.ExitCode);
        Assert.Contains("standard output was closed", result.Error);
        Assert.DoesNotContain("Dumped 5,007", result.Error);
        Assert.Matches(@"Stopped after \d[\d,]* of 5,007 entries", result.Error);
    }
}
