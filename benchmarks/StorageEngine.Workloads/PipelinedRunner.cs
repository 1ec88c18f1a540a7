using System.Diagnostics;

namespace StorageEngine.Workloads;

/// <summary>
/// Runs transactions on one thread that begins each before the previous ones are durable, keeping up to a given
/// number in flight, and times each from the start of its building to the moment the writer finds it durable
/// (it awaits them in order, so a commit that completed while the next one was being built counts until then).
/// </summary>
internal static class PipelinedRunner
{
    internal static OpRun Run(string label, long transactions, int inFlight, double capSeconds, Func<long, ValueTask> commit)
    {
        var latencies = new long[transactions];
        var waiting = new Queue<(long Transaction, long Started, ValueTask Durable)>(inFlight);
        var progress = new ProgressReporter(label, "txns", transactions);
        long capTicks = double.IsInfinity(capSeconds) ? long.MaxValue : (long)(capSeconds * Stopwatch.Frequency);
        long done = 0;
        long start = Stopwatch.GetTimestamp();

        void AwaitOldest()
        {
            var (transaction, started, durable) = waiting.Dequeue();
            durable.GetAwaiter().GetResult();
            latencies[transaction] = Stopwatch.GetTimestamp() - started;
            done++;
        }

        for (long tx = 0; tx < transactions; tx++)
        {
            long started = Stopwatch.GetTimestamp();
            waiting.Enqueue((tx, started, commit(tx)));
            while (waiting.Count >= inFlight) AwaitOldest();
            if ((tx & 15) == 0)
            {
                progress.Report(done);
                if (started - start > capTicks) break;
            }
        }
        while (waiting.Count > 0) AwaitOldest();
        double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        progress.Done();

        var sorted = done == transactions ? latencies : latencies[..(int)done];
        Array.Sort(sorted);
        return new OpRun(done, transactions, seconds, sorted, done < transactions);
    }
}
