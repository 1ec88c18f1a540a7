using Spectre.Console;

namespace StorageEngine.Tool;

/// <summary>
/// A progress bar on a terminal, drawn by Spectre.Console: the activity, the bar, the percentage, done of total,
/// the rate and the time left. Spectre's refresh thread redraws it (every 100 ms); <see cref="Stop"/> removes it
/// (AutoClear), whether the work ended, failed or was cancelled, so that nothing is left on the line the next
/// message is written to.
/// </summary>
internal sealed class ProgressBarDisplay
{
    private readonly TaskCompletionSource _stopped = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Task _display;
    private readonly ProgressTask _task;
    private int _stopping;

    /// <summary>Starts the display on <paramref name="console"/> with <paramref name="total"/> units to do.</summary>
    public ProgressBarDisplay(IAnsiConsole console, TimeProvider time, string activity, string unit, long total)
    {
        var added = new TaskCompletionSource<ProgressTask>(TaskCreationOptions.RunContinuationsAsynchronously);
        var progress = new Progress(console, time) { AutoClear = true, HideCompleted = false, ExcludeVerticalPadding = true }
            .Columns(new TaskDescriptionColumn { Alignment = Justify.Left }, new ProgressBarColumn(), new PercentageColumn(),
                new CountColumn(unit), new RateColumn(unit), new RemainingTimeColumn());
        // StartAsync keeps the display (and Spectre's refresh thread) alive until the function's task ends: the
        // function adds the one task and waits for Stop.
        _display = progress.StartAsync(async context =>
        {
            added.SetResult(context.AddTask(Markup.Escape(activity), autoStart: true, maxValue: Math.Max(1, total)));
            await _stopped.Task.ConfigureAwait(false);
        });
        // Set before StartAsync returns in practice; waited for, not assumed.
        _task = added.Task.GetAwaiter().GetResult();
    }

    /// <summary>Shows <paramref name="done"/> of <paramref name="total"/> units.</summary>
    public void Update(long done, long total)
    {
        _task.MaxValue = Math.Max(1, total);
        _task.Value = Math.Min(done, _task.MaxValue);
    }

    /// <summary>Removes the bar and waits until Spectre has cleared it and restored the cursor; once only.</summary>
    public void Stop()
    {
        if (Interlocked.Exchange(ref _stopping, 1) != 0) return;
        _stopped.TrySetResult();
        _display.GetAwaiter().GetResult();
    }
}
