using System.Diagnostics;

namespace StorageEngine.Workloads;

/// <summary>
/// Runs operations on one or more threads, timing each into a preallocated array of Stopwatch ticks.
/// Thread t runs operations [t*ops/threads, (t+1)*ops/threads). A write phase can be capped in time.
/// A read phase can be warmed up: each thread first repeats its first operations, untimed, for
/// <see cref="WarmUpSeconds"/>, so that what is timed is every engine's steady state rather than code the .NET
/// JIT has not optimized yet (quick sizes end before tiered compilation does; a managed engine's whole read
/// path is managed code, a native engine's is not, so without it the comparison measures the JIT).
/// A warmed-up phase can also ask for a minimum duration: the rate seen in the warm-up sizes the timed run,
/// so that a fast engine is not timed over a few hundred milliseconds, where a pause of the machine decides
/// the ratio (the operation index then runs past the planned count; operations must accept any index).
/// </summary>
internal static class OpRunner
{
    internal const double WarmUpSeconds = 0.5;

    /// <summary>Repeats the thread's first operations, untimed, for <see cref="WarmUpSeconds"/>; returns how many ran.</summary>
    private static long WarmUp(int thread, long from, long to, Action<int, long> operation)
    {
        long until = Stopwatch.GetTimestamp() + (long)(WarmUpSeconds * Stopwatch.Frequency);
        long count = 0;
        for (long i = from; Stopwatch.GetTimestamp() < until; i = i + 1 < to ? i + 1 : from, count++) operation(thread, i);
        return count;
    }

    internal static OpRun Run(string label, long ops, int threads, double capSeconds, Action<int, long> operation, bool recordLatency = true,
        bool warmUp = false, double minSeconds = 0)
    {
        threads = (int)Math.Max(1, Math.Min(threads, ops));
        long plannedOps = ops;
        long[] latencies = [];
        // Padded so that threads counting their progress do not share a cache line.
        const int Pad = 16;
        var done = new long[threads * Pad];
        var warmedUp = new long[threads * Pad];
        ProgressReporter? progress = null;
        long capTicks = double.IsInfinity(capSeconds) ? long.MaxValue : (long)(capSeconds * Stopwatch.Frequency);
        int stop = 0;
        Exception? failure = null;
        using var warmed = new Barrier(threads + 1);
        using var ready = new Barrier(threads + 1);
        long start = 0;

        void Worker(int t)
        {
            try
            {
                if (warmUp) warmedUp[t * Pad] = WarmUp(t, plannedOps * t / threads, plannedOps * (t + 1) / threads, operation);
            }
            catch (Exception e)
            {
                Interlocked.CompareExchange(ref failure, e, null);
                Volatile.Write(ref stop, 1);
            }
            warmed.SignalAndWait();
            ready.SignalAndWait();
            long from = ops * t / threads, to = ops * (t + 1) / threads;
            try
            {
                for (long i = from; i < to; i++)
                {
                    long before = Stopwatch.GetTimestamp();
                    operation(t, i);
                    long after = Stopwatch.GetTimestamp();
                    if (recordLatency) latencies[i] = after - before;
                    if (((i - from) & 15) == 0)
                    {
                        done[t * Pad] = i - from + 1;
                        if (after - start > capTicks) Volatile.Write(ref stop, 1);
                        if (Volatile.Read(ref stop) != 0) break;
                        if (t == 0) progress!.Report(done[0] * threads);
                    }
                    done[t * Pad] = i - from + 1;
                }
            }
            catch (Exception e)
            {
                Interlocked.CompareExchange(ref failure, e, null);
                Volatile.Write(ref stop, 1);
            }
        }

        var workers = new Thread[threads];
        for (int t = 0; t < threads; t++)
        {
            int index = t;
            workers[t] = new Thread(() => Worker(index)) { IsBackground = true, Name = $"{label} #{index}" };
            workers[t].Start();
        }
        warmed.SignalAndWait();
        if (warmUp && minSeconds > 0)
        {
            long warmOps = 0;
            for (int t = 0; t < threads; t++) warmOps += warmedUp[t * Pad];
            ops = Math.Max(ops, (long)Math.Ceiling(warmOps / WarmUpSeconds * minSeconds));
        }
        latencies = new long[recordLatency ? ops : 0];
        progress = new ProgressReporter(label, "ops", ops);
        start = Stopwatch.GetTimestamp();
        ready.SignalAndWait();
        foreach (var w in workers) w.Join();
        double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        progress.Done();
        if (failure is not null) throw new InvalidOperationException($"{label} failed: {failure.Message}", failure);

        long total = 0;
        for (int t = 0; t < threads; t++) total += done[t * Pad];
        long[] sorted;
        if (!recordLatency) sorted = [];
        else if (total == ops) sorted = latencies;
        else
        {
            sorted = new long[total];
            long k = 0;
            for (int t = 0; t < threads; t++)
            {
                long from = ops * t / threads;
                Array.Copy(latencies, from, sorted, k, done[t * Pad]);
                k += done[t * Pad];
            }
        }
        Array.Sort(sorted);
        return new OpRun(total, ops, seconds, sorted, total < ops);
    }
}
