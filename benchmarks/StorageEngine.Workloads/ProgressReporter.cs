using System.Diagnostics;
using Spectre.Console;
using StorageEngine.Tool;

namespace StorageEngine.Workloads;

/// <summary>
/// Progress of a measured phase on standard error: on a terminal, a Spectre.Console bar (activity, bar,
/// percentage, done of total, rate, time left; the tool's <see cref="ProgressBarDisplay"/>) that appears once the
/// phase has run a second and is erased when it ends or on Ctrl+C; when redirected, a line every 15 s. The
/// measuring thread only stores a count every quarter second; Spectre's own thread draws. Only one thread reports.
/// </summary>
internal sealed class ProgressReporter
{
    private static readonly bool Terminal = !Console.IsErrorRedirected;
    private static ProgressReporter? s_drawing;
    private static int s_cancelHooked;

    private readonly string _label;
    private readonly string _unit;
    private readonly long _total;
    private readonly TextWriter _error;
    private readonly bool _interactive;
    private readonly Func<IAnsiConsole> _console;
    private readonly TimeProvider _time;
    private readonly long _start = Stopwatch.GetTimestamp();
    private long _next;
    private ProgressBarDisplay? _bar;

    internal ProgressReporter(string label, string unit, long total)
        : this(label, unit, total, Console.Error, Terminal, () => ProgressBarDisplay.TerminalConsole(Console.Error), TimeProvider.System)
    {
    }

    /// <param name="label">What runs ("W3 rocksdb").</param>
    /// <param name="unit">What is counted ("ops", "txns").</param>
    /// <param name="total">How many the phase plans.</param>
    /// <param name="error">Where the redirected lines go.</param>
    /// <param name="interactive">True when standard error is a terminal: draw a bar.</param>
    /// <param name="console">The console the bar is drawn on.</param>
    /// <param name="time">The clock of the bar's rate.</param>
    internal ProgressReporter(string label, string unit, long total, TextWriter error, bool interactive, Func<IAnsiConsole> console, TimeProvider time)
    {
        _label = label;
        _unit = unit;
        _total = Math.Max(1, total);
        _error = error;
        _interactive = interactive;
        _console = console;
        _time = time;
        _next = _start + Stopwatch.Frequency * (interactive ? 1 : 15);
    }

    internal void Report(long done)
    {
        long now = Stopwatch.GetTimestamp();
        if (now < _next) return;
        _next = now + (_interactive ? Stopwatch.Frequency / 4 : Stopwatch.Frequency * 15);
        if (!_interactive)
        {
            double seconds = (double)(now - _start) / Stopwatch.Frequency;
            double fraction = Math.Min(1, (double)done / _total);
            string eta = fraction > 0 ? $", ~{seconds / fraction - seconds:0}s left" : "";
            _error.WriteLine($"  {_label}: {fraction:P0} ({done:N0}/{_total:N0}) {seconds:0.0}s{eta}");
            return;
        }
        if (_bar is null)
        {
            HookCancel();
            _bar = new ProgressBarDisplay(_console(), _time, _label, _unit, _total);
            Volatile.Write(ref s_drawing, this);
        }
        _bar.Update(done, _total);
    }

    /// <summary>Erases the bar, if one is drawn (once; also from the Ctrl+C handler).</summary>
    internal void Done()
    {
        if (_bar is null) return;
        _bar.Stop();
        Interlocked.CompareExchange(ref s_drawing, null, this);
    }

    /// <summary>Ctrl+C ends the runner; the bar drawn then is erased first, so the shell's prompt starts on a clean line.</summary>
    private static void HookCancel()
    {
        if (Interlocked.Exchange(ref s_cancelHooked, 1) != 0) return;
        Console.CancelKeyPress += (_, _) => Volatile.Read(ref s_drawing)?.Done();
    }
}
