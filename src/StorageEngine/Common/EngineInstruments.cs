using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace StorageEngine.Common;

/// <summary>
/// The engine's <see cref="Meter"/> and <see cref="ActivitySource"/> (both named <see cref="Name"/>) and the
/// instruments recorded where the work happens: commits, group writes, checkpoints, recoveries and backups.
/// Each recording first asks whether anything listens, so without a listener a commit pays two field reads.
/// The instruments read from open environments (readers, pages, journal counters) are <c>EnvironmentGauges</c>.
/// </summary>
internal static class EngineInstruments
{
    /// <summary>The name of the meter and of the activity source.</summary>
    public const string Name = "StorageEngine";

    private static readonly string Version = typeof(EngineInstruments).Assembly.GetName().Version?.ToString() ?? "0.0.0";

    public static readonly Meter Meter = new(Name, Version);

    public static readonly ActivitySource Source = new(Name, Version);

    private static readonly double[] DurationBuckets =
        [0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

    public static readonly Counter<long> Commits = Meter.CreateCounter<long>("storageengine.commits", "{commit}",
        "Write transactions made durable (outcome=ok) or whose journal or data-file write failed (outcome=failed).");

    public static readonly Histogram<double> CommitDuration = Meter.CreateHistogram("storageengine.commit.duration", "s",
        "From a commit sealed in memory until it is durable and visible (the journal group write it shares included).",
        advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = DurationBuckets });

    public static readonly Histogram<int> GroupSize = Meter.CreateHistogram<int>("storageengine.commit.group_size", "{commit}",
        "Commits written together by one journal write.");

    public static readonly Counter<long> Checkpoints = Meter.CreateCounter<long>("storageengine.checkpoints", "{checkpoint}",
        "Checkpoints written (committed pages synced to the data file, journal files recycled).");

    public static readonly Histogram<double> CheckpointDuration = Meter.CreateHistogram("storageengine.checkpoint.duration", "s",
        "How long a checkpoint took.", advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = DurationBuckets });

    /// <summary>Records a commit that is now durable, or failed, since <paramref name="preparedAt"/> (a Stopwatch timestamp).</summary>
    public static void CommitCompleted(long preparedAt, ActivityContext parent, long transactionId, Exception? failure)
    {
        if (Commits.Enabled) Commits.Add(1, new KeyValuePair<string, object?>("outcome", failure is null ? "ok" : "failed"));
        if (CommitDuration.Enabled) CommitDuration.Record(Stopwatch.GetElapsedTime(preparedAt).TotalSeconds);
        if (Source.HasListeners()) Span("storageengine.commit", preparedAt, parent, "storageengine.transaction_id", transactionId, failure);
    }

    /// <summary>Records one journal write of <paramref name="commits"/> commits.</summary>
    public static void GroupWritten(int commits)
    {
        if (GroupSize.Enabled) GroupSize.Record(commits);
    }

    /// <summary>Records a checkpoint of <paramref name="transactionId"/> that began at <paramref name="startedAt"/>.</summary>
    public static void CheckpointCompleted(long startedAt, long transactionId)
    {
        if (Checkpoints.Enabled) Checkpoints.Add(1);
        if (CheckpointDuration.Enabled) CheckpointDuration.Record(Stopwatch.GetElapsedTime(startedAt).TotalSeconds);
        if (Source.HasListeners()) Span("storageengine.checkpoint", startedAt, default, "storageengine.transaction_id", transactionId, null);
    }

    /// <summary>Records a recovery that replayed <paramref name="records"/> journal records since <paramref name="startedAt"/>.</summary>
    public static void Recovered(long startedAt, long records)
    {
        if (Source.HasListeners()) Span("storageengine.recovery", startedAt, default, "storageengine.journal.records_replayed", records, null);
    }

    /// <summary>An activity spanning a backup, or null when nothing listens; the caller disposes it when the backup ends.</summary>
    public static Activity? StartBackup(string directory) =>
        Source.HasListeners() ? Source.StartActivity("storageengine.backup")?.SetTag("storageengine.path", directory) : null;

    /// <summary>
    /// An activity for work that is already done: started at <paramref name="startedAt"/>, stopped now. Its parent is
    /// <paramref name="parent"/> (the context the work was asked for in), never the activity of the thread that
    /// happened to finish it (a group commit's leader finishes the commits of others).
    /// </summary>
    private static void Span(string name, long startedAt, ActivityContext parent, string tag, long value, Exception? failure)
    {
        var current = Activity.Current;
        Activity.Current = null;
        try
        {
            var startTime = DateTimeOffset.UtcNow - Stopwatch.GetElapsedTime(startedAt);
            using var activity = Source.StartActivity(name, ActivityKind.Internal, parent, startTime: startTime);
            if (activity is null) return;
            activity.SetTag(tag, value);
            if (failure is not null) activity.SetStatus(ActivityStatusCode.Error, failure.Message);
        }
        finally
        {
            Activity.Current = current;
        }
    }
}
