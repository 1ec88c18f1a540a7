// What a first-time user writes after `dotnet add package StorageEngine`: open, write, read, scan, reopen; then
// batches through StorageEngine.Gpu (on the CPU path where the machine has no GPU).
// Exits non-zero when anything is off, so that .ci/package-smoke.sh can rely on it.

using System.Text;
using StorageEngine;
using StorageEngine.Gpu;

string directory = Path.Combine(Path.GetTempPath(), "storageengine-consumer-" + Guid.NewGuid().ToString("N"));
try
{
    using (var env = StorageEnvironment.Open(directory))
    {
        using var tx = env.BeginWrite();
        var users = tx.CreateTree("users");
        for (int i = 0; i < 1000; i++) users.Put(Encoding.UTF8.GetBytes($"user{i:D4}"), Encoding.UTF8.GetBytes($"{{\"n\":{i}}}"));
        tx.Commit();
    }

    using (var env = StorageEnvironment.Open(directory))
    {
        using var tx = env.BeginRead();
        var users = tx.OpenTree("users");
        Require(users.Count == 1000, $"expected 1000 entries after reopening, found {users.Count}");
        Require(users.TryGet("user0042"u8, out var value) && Encoding.UTF8.GetString(value) == "{\"n\":42}", "user0042 is missing or wrong");
        int scanned = 0;
        using (var cursor = users.CreateCursor(KeyRange.Prefix("user09"u8)))
            for (bool more = cursor.First(); more; more = cursor.Next()) scanned++;
        Require(scanned == 100, $"prefix scan found {scanned} entries, not 100");
        var report = env.Check();
        Require(report.IsHealthy, "check: " + report);
        Console.WriteLine($"PackageConsumer: StorageEngine {typeof(StorageEnvironment).Assembly.GetName().Version} works: 1000 entries written, reopened, read, scanned; {report}");
        // The package's ReadyToRun image for this runtime, where it carries one (.ci/package-smoke.sh checks the line).
        string location = typeof(StorageEnvironment).Assembly.Location;
        using (var pe = new System.Reflection.PortableExecutable.PEReader(File.OpenRead(location)))
        {
            bool readyToRun = pe.PEHeaders.CorHeader is { ManagedNativeHeaderDirectory.Size: > 0 };
            Console.WriteLine($"PackageConsumer: loaded {location} (ReadyToRun: {(readyToRun ? "yes" : "no")}; {System.Runtime.InteropServices.RuntimeInformation.RuntimeIdentifier})");
        }
    }

    using (var env = StorageEnvironment.Open(directory))
    using (var gpu = GpuBackend.Create())
    {
        using (var tx = env.BeginWrite())
        {
            var batch = new WriteBatch();
            for (long key = 999; key >= 0; key--) batch.Put(key, BitConverter.GetBytes(key * 10));
            tx.CreateTree("ints", TreeOptions.Int64Keys).Apply(batch);
            tx.Commit();
        }
        using var read = env.BeginRead();
        var results = new BatchLookupResults();
        gpu.GetMany(read.OpenTree("ints"), [7, 5000, 42], results);
        Require(results.FoundCount == 2 && BitConverter.ToInt64(results[2]) == 420 && !results.IsFound(1), "batch lookup results are wrong");
        var keys = new ulong[] { 3, 1, 2 };
        gpu.Sort(keys);
        Require(keys.SequenceEqual(new ulong[] { 1, 2, 3 }), "sort is wrong");
        Console.WriteLine($"PackageConsumer: StorageEngine.Gpu works on {gpu.DeviceName}: batch written, looked up, sorted");
    }
    return 0;
}
catch (Exception e)
{
    Console.Error.WriteLine("PackageConsumer failed: " + e);
    return 1;
}
finally
{
    if (Directory.Exists(directory)) Directory.Delete(directory, recursive: true);
}

static void Require(bool condition, string message)
{
    if (!condition) throw new InvalidOperationException(message);
}
