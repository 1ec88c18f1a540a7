using System.Text.Json;
using System.Text.RegularExpressions;

namespace StorageEngine.Tool.Tests;

/// <summary>The tool's README says what the tool does.</summary>
public sealed partial class ReadmeTests : ToolTestBase
{
    private static string Readme([System.Runtime.CompilerServices.CallerFilePath] string here = "") =>
        File.ReadAllText(Path.Combine(Path.GetDirectoryName(here)!, "..", "..", "src", "StorageEngine.Tool", "README.md"));

    [Fact]
    public void The_encoding_values_in_the_readme_are_the_ones_the_tool_accepts()
    {
        string readme = Readme().Replace("\\|", "|", StringComparison.Ordinal);
        string env = CreateSampleEnvironment("env");
        var named = EncodingInReadme().Matches(readme).SelectMany(m => m.Groups[1].Value.Split('|')).ToHashSet();

        Assert.Equal(["base64", "text"], named.Order());
        foreach (var value in named) Run("dump", env, "--encoding", value, "--output", PathOf(value + ".jsonl")).AssertSuccess();
        Assert.Contains("--encoding <base64|text>", Run("dump", "--help").AssertSuccess().Output);
    }

    [Fact]
    public void Every_command_of_the_tool_has_a_row_in_the_readme()
    {
        string readme = Readme();
        var help = Run("--help").AssertSuccess().Output.Split("Commands:")[1];
        var commands = CommandInHelp().Matches(help).Select(m => m.Groups[1].Value).ToList();

        Assert.Equal(["info", "stats", "check", "dump", "load", "compact", "backup", "restore", "recover"], commands);
        foreach (var command in commands) Assert.Contains($"| `{command} ", readme);
    }

    [Fact]
    public void Info_and_stats_json_is_the_documented_shape()
    {
        string env = CreateSampleEnvironment("env");
        using var info = JsonDocument.Parse(Run("info", env, "--json").AssertSuccess().Output);
        using var stats = JsonDocument.Parse(Run("stats", env, "--json").AssertSuccess().Output);

        Assert.Equal(4, info.RootElement.GetProperty("trees").GetArrayLength());
        Assert.True(info.RootElement.GetProperty("statistics").GetProperty("pageSize").GetInt32() > 0);
        Assert.Contains(info.RootElement.GetProperty("trees").EnumerateArray(), t => t.GetProperty("int64Keys").GetBoolean());
        Assert.Equal(4, stats.RootElement.GetProperty("trees").GetArrayLength());
        Assert.True(stats.RootElement.GetProperty("trees")[0].TryGetProperty("keyMax", out _));
    }

    [GeneratedRegex(@"--encoding ([a-z0-9\\|]+)")]
    private static partial Regex EncodingInReadme();

    [GeneratedRegex(@"^  ([a-z]+) ", RegexOptions.Multiline)]
    private static partial Regex CommandInHelp();
}
