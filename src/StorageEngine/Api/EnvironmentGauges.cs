using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;
using StorageEngine.Common;

namespace StorageEngine;

/// <summary>
/// The observable instruments of <see cref="StorageEngineTelemetry"/>: read from every open environment when a
/// listener collects them, each measurement tagged with the environment's directory (<c>storageengine.path</c>).
/// Environments are held weakly and dropped once disposed, so registering one keeps nothing alive.
/// </summary>
internal static class EnvironmentGauges
{
    private const string PathTag = "storageengine.path";
    private static readonly Lock Gate = new();
    private static readonly List<WeakReference<StorageEnvironment>> Environments = [];
    private static readonly ConditionalWeakTable<StorageEnvironment, OldestReaderClock> Clocks = new();

    static EnvironmentGauges()
    {
        var meter = EngineInstruments.Meter;
        meter.CreateObservableGauge("storageengine.readers.open", () => Measure(r => (long)r.OpenReaders), "{reader}",
            "Read transactions open now.");
        meter.CreateObservableGauge("storageengine.readers.oldest.lag", () => Measure(r =>
                r.OldestReaderTransactionId == long.MaxValue ? 0 : r.LastCommittedTransactionId - r.OldestReaderTransactionId), "{transaction}",
            "How many commits the oldest open reader's snapshot is behind the newest: pages freed since it cannot be reused.");
        meter.CreateObservableGauge("storageengine.readers.oldest.age", MeasureOldestAge, "s",
            "How long the oldest open reader's snapshot has been the oldest, as seen by successive collections (a lower bound on its age).");
        meter.CreateObservableGauge("storageengine.data_file.pages", () => Measure(r => r.PageCount), "{page}",
            "Pages in the data file.");
        meter.CreateObservableGauge("storageengine.data_file.free_pages", () => Measure(r => r.FreePages), "{page}",
            "Pages of the data file free for reuse.");
        meter.CreateObservableGauge("storageengine.data_file.size", () => Measure(r => r.DataFileBytes), "By",
            "Size of the data file.");
        meter.CreateObservableCounter("storageengine.journal.writes", () => Measure(r => r.JournalWrites), "{write}",
            "Journal writes since the environment was opened (one per group of commits).");
        meter.CreateObservableCounter("storageengine.journal.bytes", () => Measure(r => r.JournalBytesWritten), "By",
            "Journal bytes written since the environment was opened.");
    }

    /// <summary>Makes an opened environment visible to the observable instruments.</summary>
    public static void Register(StorageEnvironment environment)
    {
        lock (Gate) Environments.Add(new WeakReference<StorageEnvironment>(environment));
    }

    private static List<(StorageEnvironment Environment, EnvironmentGaugeReading Reading)> ReadAll()
    {
        var readings = new List<(StorageEnvironment, EnvironmentGaugeReading)>();
        lock (Gate)
        {
            Environments.RemoveAll(w => !w.TryGetTarget(out var e) || e.IsDisposed);
            foreach (var weak in Environments)
            {
                if (!weak.TryGetTarget(out var environment)) continue;
                try
                {
                    readings.Add((environment, environment.ReadGauges()));
                }
                catch (Exception e) when (e is ObjectDisposedException or IOException or NullReferenceException)
                {
                    // Closed while being read; the next collection drops it.
                }
            }
        }
        return readings;
    }

    private static IEnumerable<Measurement<long>> Measure(Func<EnvironmentGaugeReading, long> value) =>
        ReadAll().Select(r => new Measurement<long>(value(r.Reading), new KeyValuePair<string, object?>(PathTag, r.Environment.Directory)));

    private static IEnumerable<Measurement<double>> MeasureOldestAge() =>
        ReadAll().Select(r => new Measurement<double>(Clocks.GetValue(r.Environment, static _ => new OldestReaderClock()).AgeOf(r.Reading.OldestReaderTransactionId),
            new KeyValuePair<string, object?>(PathTag, r.Environment.Directory)));

    /// <summary>Remembers since when one snapshot has been the oldest open reader's.</summary>
    private sealed class OldestReaderClock
    {
        private long _oldest = long.MaxValue;
        private long _since;

        public double AgeOf(long oldest)
        {
            lock (this)
            {
                long now = Stopwatch.GetTimestamp();
                if (oldest != _oldest)
                {
                    _oldest = oldest;
                    _since = now;
                }
                return oldest == long.MaxValue ? 0 : Stopwatch.GetElapsedTime(_since, now).TotalSeconds;
            }
        }
    }
}
