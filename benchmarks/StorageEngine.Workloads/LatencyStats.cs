using System.Diagnostics;

namespace StorageEngine.Workloads;

/// <summary>Percentiles of per-operation latencies kept as Stopwatch ticks.</summary>
internal static class LatencyStats
{
    internal static double TicksToMicros(long ticks) => ticks * 1e6 / Stopwatch.Frequency;

    /// <summary>The p-th percentile (0..100) of sorted ticks, in microseconds; NaN when empty.</summary>
    internal static double Percentile(long[] sortedTicks, double p)
    {
        if (sortedTicks.Length == 0) return double.NaN;
        int index = (int)Math.Min(sortedTicks.Length - 1, Math.Ceiling(p / 100 * sortedTicks.Length) - 1);
        return TicksToMicros(sortedTicks[Math.Max(0, index)]);
    }
}
