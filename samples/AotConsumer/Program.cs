using System.Diagnostics.Metrics;
using System.Text;
using StorageEngine;

// A small application that uses the library the way a service does: write, read, scan, back up, restore and
// check, with its metrics read through a MeterListener. Published as Native AOT by .ci/aot-smoke.sh; it prints
// one line per step and "AotConsumer: OK".
long commits = 0;
using var listener = new MeterListener
{
    InstrumentPublished = (instrument, l) =>
    {
        if (instrument.Meter.Name == StorageEngineTelemetry.MeterName && instrument.Name == "storageengine.commits") l.EnableMeasurementEvents(instrument);
    },
};
listener.SetMeasurementEventCallback<long>((_, value, _, _) => Interlocked.Add(ref commits, value));
listener.Start();
string root = Path.Combine(Path.GetTempPath(), "aot-consumer-" + Guid.NewGuid().ToString("N"));
try
{
    string path = Path.Combine(root, "db");
    using (var env = StorageEnvironment.Open(path))
    {
        using (var tx = env.BeginWrite())
        {
            var users = tx.CreateTree("users");
            for (int i = 0; i < 1000; i++) users.Put(Encoding.UTF8.GetBytes($"user{i:D4}"), Encoding.UTF8.GetBytes($"name {i}"));
            tx.CreateTree("counters", TreeOptions.Int64Keys).Put(42, "answer"u8);
            tx.Commit();
        }
        Require(Interlocked.Read(ref commits) >= 1, "the commit was not counted by storageengine.commits");
        Console.WriteLine($"wrote 1001 entries in 2 trees; storageengine.commits counted {Interlocked.Read(ref commits)}");

        using (var tx = env.BeginRead())
        {
            var users = tx.OpenTree("users");
            Require(users.Get("user0500"u8) is { } value && Encoding.UTF8.GetString(value) == "name 500", "point read");
            int scanned = 0;
            foreach (var (key, name) in users.Entries(KeyRange.Prefix("user"u8)))
                if (key.Length == 8 && name.StartsWith("name "u8)) scanned++;
            Require(scanned == 1000, $"scan saw {scanned} entries");
            Require(tx.OpenTree("counters").TryGet(42, out var answer) && answer.SequenceEqual("answer"u8), "integer key read");
        }
        Console.WriteLine("read back every entry");

        var backup = new MemoryStream();
        env.BackupAsync(backup).GetAwaiter().GetResult();
        backup.Position = 0;
        StorageEnvironment.RestoreAsync(backup, Path.Combine(root, "restored")).GetAwaiter().GetResult();
        Console.WriteLine($"backed up and restored {backup.Length} bytes");
    }

    using (var restored = StorageEnvironment.Open(Path.Combine(root, "restored")))
    {
        var report = restored.Check();
        Require(report.IsHealthy && report.EntryCount == 1001, $"restored copy: {report}");
        Console.WriteLine($"restored copy is healthy: {report.EntryCount} entries");
    }
    Console.WriteLine("AotConsumer: OK");
    return 0;
}
catch (Exception e)
{
    Console.Error.WriteLine($"AotConsumer: FAILED: {e}");
    return 1;
}
finally
{
    if (Directory.Exists(root)) Directory.Delete(root, recursive: true);
}

static void Require(bool condition, string what)
{
    if (!condition) throw new InvalidOperationException("check failed: " + what);
}
