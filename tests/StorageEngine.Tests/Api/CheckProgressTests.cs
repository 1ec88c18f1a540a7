using StorageEngine.Platform;
using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Api;

/// <summary>Check with progress and cancellation: every page visited once, reports in order, cancellation changes nothing.</summary>
public sealed class CheckProgressTests
{
    private static StorageEnvironment FragmentedEnvironment(MemoryFileSystem fs)
    {
        var env = StorageEnvironment.Open(TestData.SafeOptions(fs));
        EnvironmentContents.FillFragmented(env);
        return env;
    }

    [Fact]
    public void Check_reports_pages_visited_in_order_up_to_every_page_of_the_file()
    {
        using var env = FragmentedEnvironment(new MemoryFileSystem());
        var progress = new RecordingProgress<CheckProgress>();

        var report = env.Check(progress, CancellationToken.None);

        Assert.True(report.IsHealthy, report.ToString());
        Assert.True(progress.Reports.Count > 2, $"{progress.Reports.Count} reports");
        Assert.All(progress.Reports, p => Assert.Equal(report.PageCount, p.TotalPages));
        for (int i = 1; i < progress.Reports.Count; i++)
            Assert.True(progress.Reports[i].PagesVisited >= progress.Reports[i - 1].PagesVisited, $"report {i} went backwards");
        Assert.Equal(0, progress.Reports[0].PagesVisited);
        Assert.Equal(report.PageCount, progress.Reports[^1].PagesVisited);
        Assert.Equal(1.0, progress.Reports[^1].Fraction);
    }

    [Fact]
    public void Check_without_progress_finds_the_same_as_the_plain_check()
    {
        using var env = FragmentedEnvironment(new MemoryFileSystem());
        Assert.Equal(env.Check().ToString(), env.Check(null, CancellationToken.None).ToString());
    }

    [Fact]
    public void Cancelling_a_check_midway_throws_OperationCanceledException_and_releases_the_writer()
    {
        using var env = FragmentedEnvironment(new MemoryFileSystem());
        using var cancel = new CancellationTokenSource();
        var progress = new RecordingProgress<CheckProgress>(p =>
        {
            if (p.PagesVisited > 0) cancel.Cancel();
        });

        Assert.ThrowsAny<OperationCanceledException>(() => env.Check(progress, cancel.Token));
        Assert.True(progress.Reports[^1].PagesVisited < progress.Reports[^1].TotalPages);

        // The check's read transaction ended with it: writers and a later check run normally.
        using (var tx = env.BeginWrite(TimeSpan.FromSeconds(1)))
        {
            tx.CreateTree("after").Put("k"u8, "v"u8);
            tx.Commit();
        }
        Assert.True(env.Check().IsHealthy);
    }

    [Fact]
    public void A_check_with_an_already_cancelled_token_does_not_start()
    {
        using var env = StorageEnvironment.CreateInMemory();
        var progress = new RecordingProgress<CheckProgress>();
        Assert.ThrowsAny<OperationCanceledException>(() => env.Check(progress, new CancellationToken(canceled: true)));
        Assert.Empty(progress.Reports);
    }
}
