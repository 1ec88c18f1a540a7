using System.Text.Json;

namespace StorageEngine.Tool.Tests;

public sealed class InfoAndStatsTests : ToolTestBase
{
    [Fact]
    public void Info_lists_every_tree_with_its_entries_and_the_environment_sizes()
    {
        string env = CreateSampleEnvironment("env");
        var result = Run("info", env).AssertSuccess();
        Assert.Contains("Page size     4,096 bytes", result.Output);
        Assert.Contains("Trees         4, 507 entries", result.Output);
        Assert.Matches(@"users\s+500\s", result.Output);
        Assert.Matches(@"numbers\s+5\s.*int64", result.Output);
        Assert.Contains("last checkpoint", result.Output);
        Assert.Contains("Journal", result.Output);
    }

    [Fact]
    public void Info_as_json_carries_the_statistics_and_each_tree()
    {
        string env = CreateSampleEnvironment("env");
        var result = Run("info", env, "--json").AssertSuccess();
        using var json = JsonDocument.Parse(result.Output);
        var stats = json.RootElement.GetProperty("statistics");
        Assert.Equal(4096, stats.GetProperty("pageSize").GetInt32());
        Assert.True(stats.GetProperty("dataFileBytes").GetInt64() >= stats.GetProperty("pageCount").GetInt64() * 4096);
        Assert.Equal(0, stats.GetProperty("openReaders").GetInt32());
        var trees = json.RootElement.GetProperty("trees").EnumerateArray().ToDictionary(t => t.GetProperty("name").GetString()!);
        Assert.Equal(["binary", "empty", "numbers", "users"], trees.Keys.Order());
        Assert.Equal(500, trees["users"].GetProperty("statistics").GetProperty("entryCount").GetInt64());
        Assert.True(trees["numbers"].GetProperty("int64Keys").GetBoolean());
    }

    [Fact]
    public void Stats_reports_key_and_value_sizes_per_tree()
    {
        string env = CreateSampleEnvironment("env");
        var result = Run("stats", env, "--json").AssertSuccess();
        using var json = JsonDocument.Parse(result.Output);
        var users = json.RootElement.GetProperty("trees").EnumerateArray().Single(t => t.GetProperty("name").GetString() == "users");
        Assert.Equal(9, users.GetProperty("keyMin").GetInt64());
        Assert.Equal(9, users.GetProperty("keyMax").GetInt64());
        Assert.Equal(500 * 9, users.GetProperty("keyBytes").GetInt64());
        Assert.InRange(users.GetProperty("fill").GetDouble(), 0.05, 1.0);

        var text = Run("stats", env).AssertSuccess();
        Assert.Matches(@"users\s+500\s+9/9/9", text.Output);
    }

    [Fact]
    public void Check_says_healthy_and_exits_zero_for_a_sound_environment()
    {
        string env = CreateSampleEnvironment("env");
        var result = Run("check", env).AssertSuccess();
        Assert.StartsWith("healthy: 4 trees, 507 entries", result.Output);
    }
}
