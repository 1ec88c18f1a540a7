using System.Diagnostics;

namespace StorageEngine.Gpu.Benchmarks;

/// <summary>Timing of one operation: a warm-up run, then the best of a few runs (the least disturbed by other work).</summary>
internal static class Measure
{
    public static TimeSpan Best(Action run, int repeats)
    {
        run();
        var best = TimeSpan.MaxValue;
        for (int i = 0; i < repeats; i++)
        {
            var watch = Stopwatch.StartNew();
            run();
            watch.Stop();
            if (watch.Elapsed < best) best = watch.Elapsed;
        }
        return best;
    }

    public static string Rate(long items, TimeSpan time) => time.TotalSeconds <= 0 ? "-" : $"{items / time.TotalSeconds / 1e6,9:F2} M/s";

    public static string Share(TimeSpan part, TimeSpan whole) => whole.TotalSeconds <= 0 ? "-" : $"{100 * part.TotalSeconds / whole.TotalSeconds,5:F1} %";
}
