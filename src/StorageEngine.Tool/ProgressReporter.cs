using System.Diagnostics;
using System.Globalization;

namespace StorageEngine.Tool;

/// <summary>
/// Progress of a long command on standard error: a line redrawn in place on a terminal, an occasional line
/// when redirected, nothing when quiet.
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
    private long _lastReport = Stopwatch.GetTimestamp();
    private bool _drawn;

    public ProgressReporter(TextWriter error, string activity, long total, bool enabled, bool interactive)
    {
        _error = error;
        _activity = activity;
        _total = total;
        _enabled = enabled;
        _interactive = interactive;
        _interval = interactive ? TimeSpan.FromMilliseconds(250) : TimeSpan.FromSeconds(5);
    }

    /// <summary>Reports <paramref name="done"/> entries; cheap enough to call for each one.</summary>
    public void Report(long done)
    {
        if (!_enabled || (done & 1023) != 0) return;
        Draw(done);
    }

    /// <summary>Reports <paramref name="done"/> of <paramref name="total"/> <paramref name="unit"/>, for work reported in chunks.</summary>
    public void Report(long done, long total, string unit)
    {
        _total = total;
        _unit = unit;
        if (_enabled) Draw(done);
    }

    private void Draw(long done)
    {
        long now = Stopwatch.GetTimestamp();
        if (Stopwatch.GetElapsedTime(_lastReport, now) < _interval) return;
        _lastReport = now;
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

    /// <summary>Clears the redrawn line, if any.</summary>
    public void Complete()
    {
        if (!_drawn) return;
        _error.Write("\r" + new string(' ', 79) + "\r");
        _drawn = false;
    }
}
