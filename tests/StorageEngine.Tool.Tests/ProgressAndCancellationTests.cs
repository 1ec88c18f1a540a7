namespace StorageEngine.Tool.Tests;

public sealed class ProgressAndCancellationTests : ToolTestBase
{
    [Fact]
    public void On_a_terminal_a_known_total_shows_a_bar_with_percentage_count_and_rate_and_Complete_erases_it()
    {
        var terminal = new TerminalCapture();
        var time = new ManualTime();
        var progress = new ProgressReporter(terminal.Writer, "compact", 4096, enabled: true, interactive: true, () => terminal.Console, time);
        Thread.Sleep(300);
        progress.Report(1024);
        time.Advance(TimeSpan.FromSeconds(1));
        progress.Report(2048);

        Assert.True(terminal.WaitFor("2,048/4,096 entries"), terminal.Text);
        // 1,024 more entries in one second since the bar appeared, and 2,048 left at that rate.
        Assert.True(terminal.WaitFor("1,024 entries/s"), terminal.Text);
        Assert.True(terminal.WaitFor("00:00:02"), terminal.Text);
        string drawn = terminal.Text;
        Assert.Contains("compact", drawn);
        Assert.Contains("50%", drawn);
        // A bar of block characters between the activity and the percentage.
        Assert.Matches("compact.*━.*50%", drawn);

        progress.Complete();
        string after = terminal.Text[drawn.Length..];
        // Erased: the cursor goes back over the bar's line and the line is cleared (ESC[2K), and the cursor shows again.
        Assert.Contains("\u001b[2K", after);
        Assert.Contains("\u001b[?25h", after);
        Assert.DoesNotContain("50%", after[after.LastIndexOf("\u001b[2K", StringComparison.Ordinal)..]);
    }

    [Fact]
    public void On_a_terminal_an_unknown_total_redraws_one_line_and_clears_it_at_the_end()
    {
        var error = new StringWriter();
        var progress = new ProgressReporter(error, "load", 0, enabled: true, interactive: true);
        Thread.Sleep(300);
        progress.Report(2048);
        Assert.StartsWith("\rload: 2,048 entries", error.ToString());
        progress.Complete();
        Assert.EndsWith("\r", error.ToString());
    }

    [Fact]
    public void A_cancelled_command_erases_its_progress_bar_before_saying_Cancelled()
    {
        var terminal = new TerminalCapture();
        var context = new ToolContext(new StringReader(""), new StringWriter(), terminal.Writer, interactive: true)
        {
            ProgressConsoleInstance = terminal.Console,
            ProgressTime = new ManualTime(),
        };

        // What Ctrl+C does to a command: its token throws from inside the work, past the Complete of its normal end.
        int code = ToolApp.Guard(context, () =>
        {
            var progress = context.Progress("dump", 4096, quiet: false);
            Thread.Sleep(300);
            progress.Report(1024);
            Assert.True(terminal.WaitFor("1,024/4,096 entries"), terminal.Text);
            throw new OperationCanceledException();
        });

        Assert.Equal(ExitCodes.Cancelled, code);
        string text = terminal.Text;
        int cancelled = text.IndexOf("error: Cancelled.", StringComparison.Ordinal);
        Assert.True(cancelled > 0, text);
        // The bar was erased before the message, and nothing was drawn after it.
        Assert.Contains("\u001b[2K", text[..cancelled]);
        Assert.Contains("\u001b[?25h", text[..cancelled]);
        Assert.DoesNotContain("entries", text[cancelled..]);
    }

    [Fact]
    public void A_cancelled_command_clears_its_progress_line_before_saying_Cancelled()
    {
        var error = new StringWriter();
        var context = new ToolContext(new StringReader(""), new StringWriter(), error, interactive: true);

        int code = ToolApp.Guard(context, () =>
        {
            var progress = context.Progress("load", 0, quiet: false);
            Thread.Sleep(300);
            progress.Report(1024);
            throw new OperationCanceledException();
        });

        Assert.Equal(ExitCodes.Cancelled, code);
        Assert.Equal("\rload: 1,024 entries".PadRight(80) + "\r" + new string(' ', 79) + "\r" + "error: Cancelled." + Environment.NewLine, error.ToString());
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
