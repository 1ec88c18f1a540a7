using StorageEngine.Platform;
using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Api;

/// <summary>CompactTo: a dense copy of every tree, progress in order, and nothing left behind when it is cut short.</summary>
public sealed class CompactionTests : IDisposable
{
    private readonly TempDirectory _dir = new("compact");

    public void Dispose() => _dir.Dispose();

    private StorageEnvironment FragmentedSource()
    {
        var env = StorageEnvironment.Open(_dir.File("source"));
        EnvironmentContents.FillFragmented(env);
        return env;
    }

    [Fact]
    public void The_compacted_copy_holds_the_same_trees_and_entries_in_a_smaller_data_file()
    {
        using var source = FragmentedSource();
        long sourceBytes = new FileInfo(_dir.File("source/data.sedb")).Length;

        var result = source.CompactTo(_dir.File("copy"));

        Assert.Equal(source.LastCommittedTransactionId, result.SourceTransactionId);
        Assert.Equal(4, result.TreeCount);
        Assert.Equal(2_000 + 1_000 + 5, result.EntryCount);
        Assert.Equal(_dir.File("copy"), result.DestinationDirectory);
        long copyBytes = new FileInfo(_dir.File("copy/data.sedb")).Length;
        Assert.True(copyBytes * 3 < sourceBytes, $"the copy has {copyBytes} bytes, the source {sourceBytes}");
        Assert.True(result.DestinationPageCount < result.SourcePageCount);
        Assert.Empty(Directory.GetFiles(_dir.File("copy"), "journal-free.*"));

        using var copy = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = _dir.File("copy"), ReadOnly = true });
        Assert.Equal(EnvironmentContents.Of(source), EnvironmentContents.Of(copy));
        var check = copy.Check();
        Assert.True(check.IsHealthy, check.ToString());
        Assert.Equal(result.DestinationPageCount, check.PageCount);
    }

    [Fact]
    public void Compaction_reports_progress_in_order_up_to_every_entry_and_tree()
    {
        using var source = FragmentedSource();
        var progress = new RecordingProgress<CompactionProgress>();

        var result = source.CompactTo(_dir.File("copy"), progress);

        var reports = progress.Reports;
        Assert.True(reports.Count >= 2);
        Assert.All(reports, p => Assert.Equal((result.EntryCount, result.TreeCount), (p.TotalEntries, p.TotalTrees)));
        for (int i = 1; i < reports.Count; i++)
        {
            Assert.True(reports[i].EntriesCopied >= reports[i - 1].EntriesCopied, $"report {i} went backwards");
            Assert.True(reports[i].TreesCopied >= reports[i - 1].TreesCopied, $"report {i} went backwards");
            Assert.True(reports[i].BytesCopied >= reports[i - 1].BytesCopied, $"report {i} went backwards");
        }
        Assert.Equal((0L, 0), (reports[0].EntriesCopied, reports[0].TreesCopied));
        Assert.Equal((result.EntryCount, result.TreeCount), (reports[^1].EntriesCopied, reports[^1].TreesCopied));
        Assert.Equal(1.0, reports[^1].Fraction);
    }

    [Fact]
    public void Cancelling_a_compaction_throws_removes_the_destination_and_leaves_the_source_intact()
    {
        using var source = FragmentedSource();
        // Enough entries for reports before the end (one every 4,096 entries).
        using (var tx = source.BeginWrite())
        {
            var many = tx.CreateTree("many");
            for (int i = 0; i < 20_000; i++) many.Put(BitConverter.GetBytes(i), "v"u8);
            tx.Commit();
        }
        string before = EnvironmentContents.Of(source);
        using var cancel = new CancellationTokenSource();
        var progress = new RecordingProgress<CompactionProgress>(p =>
        {
            if (p.EntriesCopied > 0) cancel.Cancel();
        });

        Assert.ThrowsAny<OperationCanceledException>(() => source.CompactTo(_dir.File("copy"), progress, cancel.Token));

        Assert.True(progress.Reports[^1].EntriesCopied < progress.Reports[^1].TotalEntries);
        Assert.False(Directory.Exists(_dir.File("copy")));
        Assert.Equal(before, EnvironmentContents.Of(source));
        Assert.True(source.Check().IsHealthy);

        // An empty directory given as the destination is left empty, not removed.
        Directory.CreateDirectory(_dir.File("empty"));
        using var again = new CancellationTokenSource();
        var cancelling = new RecordingProgress<CompactionProgress>(p =>
        {
            if (p.EntriesCopied > 0) again.Cancel();
        });
        Assert.ThrowsAny<OperationCanceledException>(() => source.CompactTo(_dir.File("empty"), cancelling, again.Token));
        Assert.True(Directory.Exists(_dir.File("empty")));
        Assert.Empty(Directory.EnumerateFileSystemEntries(_dir.File("empty")));

        // Nothing of the cut-short copies stands in the way of a complete one.
        source.CompactTo(_dir.File("copy"));
        using var copy = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = _dir.File("copy"), ReadOnly = true });
        Assert.Equal(before, EnvironmentContents.Of(copy));
    }

    [Fact]
    public void Compaction_refuses_a_destination_that_is_the_source_a_file_or_not_empty()
    {
        using var source = StorageEnvironment.Open(_dir.File("source"));
        Directory.CreateDirectory(_dir.File("occupied"));
        File.WriteAllText(_dir.File("occupied/keep.txt"), "precious");
        File.WriteAllText(_dir.File("plain.txt"), "text");

        Assert.Contains("another directory than the source", Assert.Throws<ArgumentException>(() => source.CompactTo(_dir.File("source"))).Message);
        Assert.Contains("is not empty", Assert.Throws<ArgumentException>(() => source.CompactTo(_dir.File("occupied"))).Message);
        Assert.Contains("is a file", Assert.Throws<ArgumentException>(() => source.CompactTo(_dir.File("plain.txt"))).Message);
        Assert.Equal("precious", File.ReadAllText(_dir.File("occupied/keep.txt")));
        Assert.Equal("text", File.ReadAllText(_dir.File("plain.txt")));
    }

    [Fact]
    public void Compaction_into_options_can_change_the_page_size()
    {
        using var source = FragmentedSource();
        source.CompactTo(new StorageEnvironmentOptions { Path = _dir.File("big"), PageSize = 16384 });

        using var copy = StorageEnvironment.Open(_dir.File("big"));
        Assert.Equal(16384, copy.PageSize);
        Assert.Equal(EnvironmentContents.Of(source), EnvironmentContents.Of(copy));
    }

    [Fact]
    public void An_environment_on_a_memory_file_system_compacts_onto_the_same_file_system()
    {
        var fs = new MemoryFileSystem();
        using var source = StorageEnvironment.Open(TestData.SafeOptions(fs));
        EnvironmentContents.FillFragmented(source, entries: 2_000);

        source.CompactTo("/copy");

        using var copy = StorageEnvironment.Open(TestData.SafeOptions(fs, "/copy"));
        Assert.Equal(EnvironmentContents.Of(source), EnvironmentContents.Of(copy));
    }
}
