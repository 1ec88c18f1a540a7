using System.Diagnostics;
using System.Globalization;
using Spectre.Console;

namespace StorageEngine.Tool;

/// <summary>
/// Progress of a long command on standard error: on a terminal, a Spectre.Console bar with percentage and rate
/// once the total is known (a line redrawn in place while it is not); an occasional line when redirected;
/// nothing when quiet. <see cref="Complete"/> removes whatever is drawn; the tool calls it on success, on
/// failure and on Ctrl+C (see <see cref="ToolContext.ClearProgress"/>).
/// </summary>
internal sealed class ProgressReporter
{
    private readonly TextWriter _error;
    private readonly string _activity;
    private long _total;
    private string _unit = "entries";
    private readonly bool _enabled;
    private readonly bool _interactive;
    private readonly TimeSpan _interval;
    private readonly Func<IAnsiConsole> _console;
    private readonly TimeProvider _time;
    private long _lastReport = Stopwatch.GetTimestamp();
    private bool _drawn;
    private ProgressBarDisplay? _bar;

    /// <param name="error">Standard error.</param>
    /// <param name="activity">What is being done, shown first ("compact").</param>
    /// <param name="total">Units to do, or 0 while unknown.</param>
    /// <param name="enabled">False when quiet: nothing is written.</param>
    /// <param name="interactive">True when <paramref name="error"/> is a terminal.</param>
    /// <param name="console">The Spectre console the bar is drawn on; by default one over <paramref name="error"/>.</param>
    /// <param name="time">The clock of the bar's rate; the system's by default.</param>
    public ProgressReporter(TextWriter error, string activity, long total, bool enabled, bool interactive,
        Func<IAnsiConsole>? console = null, TimeProvider? time = null)
    {
        _error = error;
        _activity = activity;
        _total = total;
        _enabled = enabled;
        _interactive = interactive;
        _interval = interactive ? TimeSpan.FromMilliseconds(250) : TimeSpan.FromSeconds(5);
        _console = console ?? (() => ProgressBarDisplay.TerminalConsole(error));
        _time = time ?? TimeProvider.System;
    }

    /// <summary>Reports <paramref name="done"/> entries; cheap enough to call for each one.</summary>
    public void Report(long done)
    {
        if (!_enabled || (done & 1023) != 0) return;
        Show(done);
    }

    /// <summary>Reports <paramref name="done"/> of <paramref name="total"/> <paramref name="unit"/>, for work reported in chunks.</summary>
    public void Report(long done, long total, string unit)
    {
        _total = total;
        _unit = unit;
        if (_enabled) Show(done);
    }

    private void Show(long done)
    {
        if (_bar is not null)
        {
            _bar.Update(done, _total);
            return;
        }
        long now = Stopwatch.GetTimestamp();
        // Nothing for the first moment (a quick command draws nothing), then at most every interval.
        if (Stopwatch.GetElapsedTime(_lastReport, now) < _interval) return;
        _lastReport = now;
        if (_interactive && _total > 0)
        {
            Clear();
            _bar = new ProgressBarDisplay(_console(), _time, _activity, _unit, _total);
            _bar.Update(done, _total);
            return;
        }
        string percent = _total > 0 ? string.Create(CultureInfo.InvariantCulture, $"{Math.Min(100, 100.0 * done / _total):0}% ") : "";
        string text = _total > 0
            ? string.Create(CultureInfo.InvariantCulture, $"{_activity}: {percent}({done:N0} of {_total:N0} {_unit})")
            : string.Create(CultureInfo.InvariantCulture, $"{_activity}: {done:N0} {_unit}");
        if (_interactive)
        {
            _error.Write("\r" + text.PadRight(79));
            _drawn = true;
        }
        else _error.WriteLine(text);
    }

    /// <summary>Removes the bar or clears the redrawn line, if any; safe to call more than once.</summary>
    public void Complete()
    {
        _bar?.Stop();
        Clear();
    }

    private void Clear()
    {
        if (!_drawn) return;
        _error.Write("\r" + new string(' ', 79) + "\r");
        _drawn = false;
    }
}
