using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Api;

/// <summary>
/// The engine's metrics and traces, read as OpenTelemetry would: through a <see cref="MeterListener"/> and an
/// <see cref="ActivityListener"/>. The meter is process-wide and other tests commit in parallel, so counters are
/// checked as lower bounds and the observable instruments by this test's environment directory.
/// </summary>
public sealed class TelemetryTests
{
    private sealed record Recorded(string Instrument, double Value, KeyValuePair<string, object?>[] Tags)
    {
        public string? Tag(string name) => Tags.FirstOrDefault(t => t.Key == name).Value?.ToString();
    }

    private static MeterListener Listen(ConcurrentQueue<Recorded> into)
    {
        var listener = new MeterListener
        {
            InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Meter.Name == StorageEngineTelemetry.MeterName) l.EnableMeasurementEvents(instrument);
            },
        };
        listener.SetMeasurementEventCallback<long>((i, v, tags, _) => into.Enqueue(new Recorded(i.Name, v, tags.ToArray())));
        listener.SetMeasurementEventCallback<int>((i, v, tags, _) => into.Enqueue(new Recorded(i.Name, v, tags.ToArray())));
        listener.SetMeasurementEventCallback<double>((i, v, tags, _) => into.Enqueue(new Recorded(i.Name, v, tags.ToArray())));
        listener.Start();
        return listener;
    }

    private static void Commit(StorageEnvironment env, int i)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(BitConverter.GetBytes(i), new byte[100]);
        tx.Commit();
    }

    [Fact]
    public void Commits_group_writes_and_checkpoints_are_counted_and_timed()
    {
        var recorded = new ConcurrentQueue<Recorded>();
        using var listener = Listen(recorded);
        using var dir = new TempDirectory("telemetry");
        using var env = StorageEnvironment.Open(dir.Path);

        for (int i = 0; i < 20; i++) Commit(env, i);
        env.Checkpoint();

        var all = recorded.ToArray();
        Assert.True(all.Where(r => r.Instrument == "storageengine.commits" && r.Tag("outcome") == "ok").Sum(r => r.Value) >= 20);
        var durations = all.Where(r => r.Instrument == "storageengine.commit.duration").ToList();
        Assert.True(durations.Count >= 20);
        Assert.All(durations, d => Assert.True(d.Value >= 0));
        Assert.Contains(all, r => r.Instrument == "storageengine.commit.group_size" && r.Value >= 1);
        Assert.Contains(all, r => r.Instrument == "storageengine.checkpoints" && r.Value == 1);
        Assert.Contains(all, r => r.Instrument == "storageengine.checkpoint.duration" && r.Value >= 0);
    }

    [Fact]
    public void Observable_instruments_report_readers_pages_and_journal_per_environment()
    {
        var recorded = new ConcurrentQueue<Recorded>();
        using var listener = Listen(recorded);
        using var dir = new TempDirectory("telemetry");
        using var env = StorageEnvironment.Open(dir.Path);
        Commit(env, 0);
        using var reader = env.BeginRead();
        for (int i = 1; i <= 5; i++) Commit(env, i);

        listener.RecordObservableInstruments();
        listener.RecordObservableInstruments();

        var mine = recorded.Where(r => r.Tag("storageengine.path") == env.Directory).ToList();
        double Last(string name) => mine.Last(r => r.Instrument == name).Value;
        var stats = env.GetStatistics();
        Assert.Equal(1, Last("storageengine.readers.open"));
        Assert.Equal(5, Last("storageengine.readers.oldest.lag"));
        Assert.True(Last("storageengine.readers.oldest.age") >= 0);
        Assert.Equal(stats.PageCount, Last("storageengine.data_file.pages"));
        Assert.Equal(stats.FreePages, Last("storageengine.data_file.free_pages"));
        Assert.Equal(stats.DataFileBytes, Last("storageengine.data_file.size"));
        Assert.Equal(stats.JournalWrites, Last("storageengine.journal.writes"));
        Assert.Equal(stats.JournalBytesWritten, Last("storageengine.journal.bytes"));
        Assert.True(stats.JournalWrites >= 1);
    }

    [Fact]
    public void A_disposed_environment_is_no_longer_measured()
    {
        var recorded = new ConcurrentQueue<Recorded>();
        using var listener = Listen(recorded);
        using var dir = new TempDirectory("telemetry");
        string path;
        using (var env = StorageEnvironment.Open(dir.Path)) path = env.Directory;

        listener.RecordObservableInstruments();

        Assert.DoesNotContain(recorded, r => r.Tag("storageengine.path") == path);
    }

    [Fact]
    public async Task Commits_checkpoints_recoveries_and_backups_are_traced()
    {
        var stopped = new ConcurrentQueue<Activity>();
        using var listener = new ActivityListener
        {
            ShouldListenTo = source => source.Name == StorageEngineTelemetry.ActivitySourceName,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = stopped.Enqueue,
        };
        ActivitySource.AddActivityListener(listener);
        using var dir = new TempDirectory("telemetry");
        string live = dir.File("live"), crashed = dir.File("crashed");

        using var parentSource = new ActivitySource("StorageEngine.Tests.Telemetry");
        using var parentListener = new ActivityListener
        {
            ShouldListenTo = source => source.Name == parentSource.Name,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
        };
        ActivitySource.AddActivityListener(parentListener);
        using (var env = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = live, CheckpointInterval = TimeSpan.FromHours(1) }))
        {
            using (var request = parentSource.StartActivity("request"))
            {
                Commit(env, 1);
                Assert.Contains(stopped, a => a.OperationName == "storageengine.commit" && a.ParentSpanId == request!.SpanId);
            }
            // What a crash leaves: the files as they are, the commit in the journal only.
            Directory.CreateDirectory(crashed);
            foreach (var file in Directory.GetFiles(live))
                if (Path.GetFileName(file) != "LOCK") File.Copy(file, Path.Combine(crashed, Path.GetFileName(file)));
            env.Checkpoint();
            await env.BackupAsync(new MemoryStream());
        }
        using (StorageEnvironment.Open(crashed)) { }

        Assert.Contains(stopped, a => a.OperationName == "storageengine.checkpoint");
        Assert.Contains(stopped, a => a.OperationName == "storageengine.backup" && (string?)a.GetTagItem("storageengine.path") == Path.GetFullPath(live));
        Assert.Contains(stopped, a => a.OperationName == "storageengine.recovery" && a.GetTagItem("storageengine.journal.records_replayed") is long n && n >= 1);
    }
}
