using System.Diagnostics;

namespace StorageEngine.Workloads;

/// <summary>
/// A one-line progress indicator on stderr: rewritten in place on a terminal, a line every 15 s when
/// redirected. Only one thread reports.
/// </summary>
internal sealed class ProgressReporter
{
    private static readonly bool Interactive = !Console.IsErrorRedirected;
    private readonly string _label;
    private readonly long _total;
    private readonly long _start = Stopwatch.GetTimestamp();
    private long _next;
    private bool _shown;

    internal ProgressReporter(string label, long total)
    {
        _label = label;
        _total = Math.Max(1, total);
        _next = _start + Stopwatch.Frequency * (Interactive ? 1 : 15);
    }

    internal void Report(long done)
    {
        long now = Stopwatch.GetTimestamp();
        if (now < _next) return;
        _next = now + (Interactive ? Stopwatch.Frequency / 4 : Stopwatch.Frequency * 15);
        double seconds = (double)(now - _start) / Stopwatch.Frequency;
        double fraction = Math.Min(1, (double)done / _total);
        string eta = fraction > 0 ? $", ~{seconds / fraction - seconds:0}s left" : "";
        string line = $"  {_label}: {fraction:P0} ({done:N0}/{_total:N0}) {seconds:0.0}s{eta}";
        if (Interactive) Console.Error.Write("\r" + line.PadRight(Math.Min(119, Math.Max(line.Length, 100))));
        else Console.Error.WriteLine(line);
        _shown = true;
    }

    internal void Done()
    {
        if (_shown && Interactive) Console.Error.Write("\r" + new string(' ', 119) + "\r");
    }
}
