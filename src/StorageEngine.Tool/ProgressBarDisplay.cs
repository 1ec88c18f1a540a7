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
    /// <summary>How long the bar must have run before it shows a rate (and so a time left).</summary>
    private static readonly TimeSpan RateAfter = TimeSpan.FromSeconds(0.5);

    private readonly TaskCompletionSource _stopped = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Task _display;
    private readonly ProgressTask _task;
    private readonly TimeProvider _time;
    private readonly object _rateLock = new();
    private long _firstAt;
    private double _firstDone = double.NaN;
    private double? _rate;
    private int _stopping;

    /// <summary>Starts the display on <paramref name="console"/> with <paramref name="total"/> units to do.</summary>
    public ProgressBarDisplay(IAnsiConsole console, TimeProvider time, string activity, string unit, long total)
    {
        var added = new TaskCompletionSource<ProgressTask>(TaskCreationOptions.RunContinuationsAsynchronously);
        _time = time;
        // The rate and the time left are this display's own, measured from its first update: Spectre's speed counts
        // that update's whole value as done in its first moment, and a bar that appears after work has started (the
        // tool's after a quarter second, the runner's after a second) then showed a rate thousands of times too high.
        var progress = new Progress(console, time) { AutoClear = true, HideCompleted = false, ExcludeVerticalPadding = true }
            .Columns(new TaskDescriptionColumn { Alignment = Justify.Left }, new ProgressBarColumn(), new PercentageColumn(),
                new CountColumn(unit), new RateColumn(unit, () => Rate), new TimeLeftColumn(() => Rate));
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

    /// <summary>Units per second since the first update, once the bar has run <see cref="RateAfter"/>; else null.</summary>
    public double? Rate
    {
        get
        {
            lock (_rateLock) return _rate;
        }
    }

    /// <summary>
    /// A Spectre console over standard error, which the caller found to be a terminal. ANSI support is detected
    /// (a dumb terminal gets Spectre's plain fallback rather than escape codes).
    /// </summary>
    public static IAnsiConsole TerminalConsole(TextWriter error) => AnsiConsole.Create(new AnsiConsoleSettings
    {
        Out = new AnsiConsoleOutput(error),
        Ansi = AnsiSupport.Detect,
        ColorSystem = ColorSystemSupport.Detect,
        Interactive = InteractionSupport.Yes,
    });

    /// <summary>Shows <paramref name="done"/> of <paramref name="total"/> units.</summary>
    public void Update(long done, long total)
    {
        long now = _time.GetTimestamp();
        lock (_rateLock)
        {
            if (double.IsNaN(_firstDone))
            {
                _firstDone = done;
                _firstAt = now;
            }
            else if (_time.GetElapsedTime(_firstAt, now) is var elapsed && elapsed >= RateAfter)
            {
                _rate = (done - _firstDone) / elapsed.TotalSeconds;
            }
        }
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
