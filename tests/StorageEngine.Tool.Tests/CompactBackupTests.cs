using System.Text;

namespace StorageEngine.Tool.Tests;

public sealed class CompactBackupTests : ToolTestBase
{
    /// <summary>An environment that had many entries and lost most of them: mostly free pages.</summary>
    private string CreateFragmentedEnvironment(string name)
    {
        string path = PathOf(name);
        using var env = StorageEnvironment.Open(path);
        var value = new byte[200];
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("items");
            for (int i = 0; i < 20_000; i++) tree.Put(Encoding.UTF8.GetBytes($"item{i:D6}"), value);
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("items");
            for (int i = 0; i < 20_000; i++)
                if (i % 10 != 0) tree.Delete(Encoding.UTF8.GetBytes($"item{i:D6}"));
            tx.Commit();
        }
        return path;
    }

    [Fact]
    public void Compact_writes_the_same_contents_into_a_smaller_file_and_reports_both_sizes()
    {
        string source = CreateFragmentedEnvironment("source");
        long before = new FileInfo(Path.Combine(source, "data.sedb")).Length;

        var result = Run("compact", source, PathOf("compacted")).AssertSuccess();

        long after = new FileInfo(PathOf("compacted/data.sedb")).Length;
        Assert.True(after * 4 < before, $"compacted {after} bytes from {before}");
        Assert.Contains("Compacted 2,000 entries in 1 trees", result.Output);
        Assert.Contains("before  data file", result.Output);
        Assert.Matches(@"saved   \d[\d.]* [KM]iB of the data file \(\d", result.Output);
        Assert.Contains("check   healthy", result.Output);
        Assert.Empty(Directory.GetFiles(PathOf("compacted"), "journal-free.*"));
        Assert.Equal(Contents(source), Contents(PathOf("compacted")));
    }

    [Fact]
    public void Compact_can_change_the_page_size()
    {
        string source = CreateSampleEnvironment("source");
        Run("compact", source, PathOf("big-pages"), "--page-size", "8192").AssertSuccess();
        using (var env = StorageEnvironment.Open(PathOf("big-pages"))) Assert.Equal(8192, env.PageSize);
        Assert.Equal(Contents(source), Contents(PathOf("big-pages")));
        Run("compact", source, PathOf("bad"), "--page-size", "1000").AssertCleanFailure("PageSize must be a power of two");
    }

    [Fact]
    public void Compact_refuses_a_target_that_is_not_empty_or_is_the_source()
    {
        string source = CreateSampleEnvironment("source");
        Directory.CreateDirectory(PathOf("occupied"));
        File.WriteAllText(PathOf("occupied/keep.txt"), "precious");

        Run("compact", source, PathOf("occupied")).AssertCleanFailure("is not empty");
        Run("compact", source, source).AssertCleanFailure("another directory than the source");
        Assert.Equal("precious", File.ReadAllText(PathOf("occupied/keep.txt")));
    }

    [Fact]
    public void Compacting_a_dense_environment_says_nothing_was_saved_instead_of_a_negative_saving()
    {
        string source = CreateSampleEnvironment("dense");
        string once = PathOf("once");
        Run("compact", source, once).AssertSuccess();

        var result = Run("compact", once, PathOf("twice")).AssertSuccess();

        Assert.Contains("saved   nothing: the source was already dense", result.Output);
        Assert.DoesNotContain("saved   -", result.Output);
    }
}
