using System.Text.Json;

namespace StorageEngine.Tool.Tests;

public sealed class DumpLoadTests : ToolTestBase
{
    [Theory]
    [InlineData("base64")]
    [InlineData("text")]
    public void Dump_then_load_recreates_every_tree_entry_and_tree_option(string encoding)
    {
        string source = CreateSampleEnvironment("source");
        string file = PathOf("dump.jsonl");
        Run("dump", source, "--encoding", encoding, "--output", file).AssertSuccess();
        var loaded = Run("load", PathOf("copy"), "--encoding", encoding, "--input", file).AssertSuccess();

        Assert.Contains("Loaded 507 new entries into 4 trees", loaded.Output);
        Assert.Equal(Contents(source), Contents(PathOf("copy")));
    }

    [Fact]
    public void Text_dumps_are_readable_json_lines_with_base64_only_for_bytes_that_are_not_utf8()
    {
        string source = CreateSampleEnvironment("source");
        var result = Run("dump", source, "--encoding", "text", "--tree", "users", "--tree", "binary", "--tree", "numbers").AssertSuccess();
        var lines = result.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries);

        Assert.Equal("""{"tree":"users"}""", lines.First(l => l.Contains("users")));
        Assert.Contains("""{"tree":"users","key":"user00000","value":"{\"name\":\"Üser 0\"}"}""", lines);
        Assert.Contains("""{"tree":"binary","key64":"/wDD","value64":"AP6A"}""", lines);
        Assert.Contains("""{"tree":"numbers","int64Keys":true}""", lines);
        Assert.Contains("""{"tree":"numbers","key":-9223372036854775808,"value":"-9223372036854775808"}""", lines);
        Assert.DoesNotContain(lines, l => l.Contains("\"empty\""));
        Assert.All(lines, l => JsonDocument.Parse(l).Dispose());
    }

    [Fact]
    public void Loading_from_standard_input_puts_entries_into_existing_trees()
    {
        string env = CreateSampleEnvironment("env");
        var input = """
            {"tree":"users","key":"user00000","value":"replaced"}
            {"tree":"fresh","key":"a","value":"b"}

            """;
        RunWithInput(input, "load", env, "-e", "text").AssertSuccess();
        var dump = Run("dump", env, "-e", "text", "-t", "users", "-t", "fresh").AssertSuccess().Output;
        Assert.Contains("""{"tree":"users","key":"user00000","value":"replaced"}""", dump);
        Assert.Contains("""{"tree":"fresh","key":"a","value":"b"}""", dump);
    }

    [Fact]
    public void A_malformed_line_is_reported_with_its_number_and_what_was_kept()
    {
        var input = """
            {"tree":"t","key":"YQ==","value":"Yg=="}
            {"tree":"t","key":"YQ=="}
            """;
        RunWithInput(input, "load", PathOf("target")).AssertCleanFailure("Input line 2: the line has a key but no value (nothing was loaded)");
        RunWithInput("not json\n", "load", PathOf("target")).AssertCleanFailure("Input line 1: not valid JSON");
        RunWithInput("""{"tree":"t","key":"a b","value":""}""", "load", PathOf("target")).AssertCleanFailure("is not a base64 string");
    }

    [Fact]
    public void Loading_a_tree_line_that_contradicts_an_existing_tree_is_refused()
    {
        string env = CreateSampleEnvironment("env");
        RunWithInput("""{"tree":"users","int64Keys":true}""", "load", env).AssertCleanFailure("'users' exists with options None");
    }

    [Fact]
    public void Dumping_a_tree_that_does_not_exist_names_the_trees_there_are()
    {
        string env = CreateSampleEnvironment("env");
        Run("dump", env, "--tree", "nope").AssertCleanFailure("no tree named 'nope'. Its trees: binary, empty, numbers, users.");
    }

    [Fact]
    public void Loading_into_a_directory_of_unrelated_files_is_refused()
    {
        Directory.CreateDirectory(PathOf("photos"));
        File.WriteAllText(PathOf("photos/cat.jpg"), "meow");
        RunWithInput("", "load", PathOf("photos")).AssertCleanFailure("other files and no environment");
        Assert.False(File.Exists(PathOf("photos/data.sedb")));
    }
}
