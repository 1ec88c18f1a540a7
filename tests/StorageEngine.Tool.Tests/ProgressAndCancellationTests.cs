namespace StorageEngine.Tool.Tests;

public sealed class ProgressAndCancellationTests : ToolTestBase
{
    [Fact]
    public void On_a_terminal_progress_redraws_one_line_and_clears_it_at_the_end()
    {
        var error = new StringWriter();
        var progress = new ProgressReporter(error, "compact", 4096, enabled: true, interactive: true);
        Thread.Sleep(300);
        progress.Report(2048);
        Assert.StartsWith("\rcompact: 50% (2,048 of 4,096 entries)", error.ToString());
        progress.Complete();
        Assert.EndsWith("\r", error.ToString());
    }

    [Fact]
    public void Quiet_progress_prints_nothing()
    {
        var error = new StringWriter();
        var progress = new ProgressReporter(error, "dump", 4096, enabled: false, interactive: true);
        Thread.Sleep(300);
        progress.Report(2048);
        progress.Complete();
        Assert.Equal("", error.ToString());
    }

    [Fact]
    public void A_cancelled_copy_removes_the_target_it_created()
    {
        string source = CreateSampleEnvironment("source");
        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();
        var progress = new ProgressReporter(TextWriter.Null, "backup", 0, enabled: false, interactive: false);

        Assert.Throws<OperationCanceledException>(() => EnvironmentCopier.Copy(source, PathOf("target"), null, _ => progress, cancelled.Token));
        Assert.False(Directory.Exists(PathOf("target")));

        Directory.CreateDirectory(PathOf("empty"));
        Assert.Throws<OperationCanceledException>(() => EnvironmentCopier.Copy(source, PathOf("empty"), null, _ => progress, cancelled.Token));
        Assert.Empty(Directory.EnumerateFileSystemEntries(PathOf("empty")));
    }
}
