// What a first-time user writes after `dotnet add package StorageEngine`: open, write, read, scan, reopen.
// Exits non-zero when anything is off, so that .ci/package-smoke.sh can rely on it.

using System.Text;
using StorageEngine;

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
