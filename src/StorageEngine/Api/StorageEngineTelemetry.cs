using StorageEngine.Common;

namespace StorageEngine;

/// <summary>
/// The names under which the engine publishes its metrics (<see cref="System.Diagnostics.Metrics.Meter"/>) and traces
/// (<see cref="System.Diagnostics.ActivitySource"/>), so that OpenTelemetry collects them with
/// <c>.AddMeter(StorageEngineTelemetry.MeterName)</c> and <c>.AddSource(StorageEngineTelemetry.ActivitySourceName)</c>.
/// </summary>
/// <remarks>
/// Instruments: <c>storageengine.commits</c> (counter, tag <c>outcome</c> ok or failed), <c>storageengine.commit.duration</c>
/// (histogram, seconds from a commit sealed in memory until it is durable), <c>storageengine.commit.group_size</c>
/// (histogram, commits per journal write), <c>storageengine.journal.writes</c> and <c>storageengine.journal.bytes</c>
/// (observable counters), <c>storageengine.checkpoints</c> (counter) and <c>storageengine.checkpoint.duration</c>
/// (histogram, seconds), <c>storageengine.readers.open</c>, <c>storageengine.readers.oldest.lag</c> (commits behind the
/// newest) and <c>storageengine.readers.oldest.age</c> (seconds), <c>storageengine.data_file.pages</c>,
/// <c>storageengine.data_file.free_pages</c> and <c>storageengine.data_file.size</c> (observable gauges). The
/// observable ones carry the environment's directory as <c>storageengine.path</c>. Activities:
/// <c>storageengine.commit</c> (parented to the activity the commit was made in), <c>storageengine.checkpoint</c>,
/// <c>storageengine.recovery</c> and <c>storageengine.backup</c>. Nothing is recorded while nothing listens.
/// </remarks>
public static class StorageEngineTelemetry
{
    /// <summary>The name of the engine's meter.</summary>
    public const string MeterName = EngineInstruments.Name;

    /// <summary>The name of the engine's activity source.</summary>
    public const string ActivitySourceName = EngineInstruments.Name;
}
