using StorageEngine.Tool.Tests;
using StorageEngine.Workloads;

namespace StorageEngine.Peers.Tests;

/// <summary>
/// The workload runner's progress: on a terminal a Spectre.Console bar for a phase that runs past a second, with
/// percentage, count and rate, erased when the phase ends; nothing for shorter phases; plain lines when redirected.
/// </summary>
public sealed class RunnerProgressTests
{
    [Fact]
    public void On_a_terminal_a_phase_past_a_second_shows_a_bar_with_percentage_count_and_rate_and_Done_erases_it()
    {
        var terminal = new TerminalCapture();
        var time = new ManualTime();
        var progress = new ProgressReporter("W3 storageengine", "ops", 4096, terminal.Writer, interactive: true, () => terminal.Console, time);
        progress.Report(10);
        Assert.Equal("", terminal.Text);

        Thread.Sleep(1100);
        progress.Report(1024);
        time.Advance(TimeSpan.FromSeconds(1));
        Thread.Sleep(300);
        progress.Report(2048);
        Assert.True(terminal.WaitFor("2,048/4,096 ops"), terminal.Text);
        // The rate counts from the bar's first update (1,024 more in one second), not from the phase's start: a bar
        // that appears once work is under way must not count what was done before as done in its first moment.
        Assert.True(terminal.WaitFor("1,024 ops/s"), terminal.Text);
        Assert.True(terminal.WaitFor("00:00:02"), terminal.Text);
        string drawn = terminal.Text;
        Assert.Matches("W3 storageengine.*━.*50%", drawn);

        progress.Done();
        string after = terminal.Text[drawn.Length..];
        Assert.Contains("\u001b[2K", after);
        Assert.Contains("\u001b[?25h", after);
        progress.Done();
    }

    [Fact]
    public void A_phase_shorter_than_a_second_draws_nothing_and_redirected_output_gets_no_escape_codes()
    {
        var terminal = new TerminalCapture();
        var quick = new ProgressReporter("W1 lmdb", "ops", 100, terminal.Writer, interactive: true, () => terminal.Console, new ManualTime());
        quick.Report(50);
        quick.Done();
        Assert.Equal("", terminal.Text);

        var redirected = new StringWriter();
        var lines = new ProgressReporter("W1 lmdb", "ops", 100, redirected, interactive: false, () => terminal.Console, new ManualTime());
        lines.Report(50);
        lines.Done();
        Assert.Equal("", redirected.ToString());
        Assert.Equal("", terminal.Text);
    }
}
