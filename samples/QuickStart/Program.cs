// QuickStart: the engine end to end on a real directory.
// Usage: dotnet run -c Release --project samples/QuickStart [directory] [items]
// The directory (default ./quickstart-data) is deleted first. The sample writes the items in durable batches,
// reads some back at random, scans a key prefix both ways, closes, reopens, verifies every item against the
// generator, checks the environment's invariants, and prints the timings and file sizes.

using System.Diagnostics;
using System.Globalization;
using Microsoft.Extensions.Logging;
using QuickStart;
using StorageEngine;

string directory = Path.GetFullPath(args.Length > 0 ? args[0] : "quickstart-data");
long itemCount = args.Length > 1 ? long.Parse(args[1], CultureInfo.InvariantCulture) : 1_000_000;
const int BatchSize = 1_000;
const int RandomReads = 200_000;
const string TreeName = "items";

if (Directory.Exists(directory)) Directory.Delete(directory, recursive: true);

var loggerFactory = LoggerFactory.Create(builder => builder
    .SetMinimumLevel(LogLevel.Information)
    .AddSimpleConsole(console =>
    {
        console.SingleLine = true;
        console.TimestampFormat = "HH:mm:ss.fff ";
    }));
var log = loggerFactory.CreateLogger("QuickStart");
var results = new List<(string Phase, long Items, TimeSpan Elapsed)>();
var failures = new List<string>();
var options = new StorageEnvironmentOptions
{
    Path = directory,
    Durability = DurabilityMode.Safe, // the default: a returned commit is on the device
    LoggerFactory = loggerFactory,
};

Span<byte> key = stackalloc byte[ItemGenerator.KeySize];
Span<byte> value = stackalloc byte[ItemGenerator.MaxValueSize];
long logicalBytes = 0;

var env = StorageEnvironment.Open(options);
{
    // 1. Durable batched writes: one write transaction (one journal write) per batch.
    var watch = Stopwatch.StartNew();
    for (long first = 0; first < itemCount; first += BatchSize)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree(TreeName);
        for (long item = first; item < Math.Min(first + BatchSize, itemCount); item++)
        {
            ItemGenerator.WriteKey(item, key);
            int length = ItemGenerator.WriteValue(item, value);
            tree.Put(key, value[..length]);
            logicalBytes += key.Length + length;
        }
        tx.Commit();
    }
    results.Add(($"write ({BatchSize:N0} items per durable commit)", itemCount, watch.Elapsed));
    log.LogInformation("Wrote {Items:N0} items in {Commits:N0} commits.", itemCount, (itemCount + BatchSize - 1) / BatchSize);

    // 2. Random point reads, plus keys that are not there.
    using (var tx = env.BeginRead())
    {
        var tree = tx.OpenTree(TreeName);
        var random = new Random(42);
        int reads = (int)Math.Min(RandomReads, itemCount);
        watch.Restart();
        for (int i = 0; i < reads; i++)
        {
            long item = random.NextInt64(itemCount);
            ItemGenerator.WriteKey(item, key);
            if (!tree.TryGet(key, out var found) || !ItemGenerator.Matches(item, key, found))
                failures.Add($"random read: item {item} is missing or wrong");
        }
        results.Add(("random TryGet", reads, watch.Elapsed));
        for (long item = itemCount; item < itemCount + 1_000; item++)
        {
            ItemGenerator.WriteKey(item, key);
            if (tree.ContainsKey(key)) failures.Add($"random read: item {item} was never written but is present");
        }
    }

    // 3. A prefix scan, forwards then backwards. The first 6 key bytes are shared by 65,536 consecutive items.
    using (var tx = env.BeginRead())
    {
        var tree = tx.OpenTree(TreeName);
        long prefixStart = itemCount > 0x50000 ? 0x50000 : 0;
        ItemGenerator.WriteKey(prefixStart, key);
        var range = KeyRange.Prefix(key[..6]);
        long expectedInRange = Math.Min(itemCount, prefixStart + 0x10000) - prefixStart;
        using var cursor = tree.CreateCursor(range);

        watch.Restart();
        long expected = prefixStart, seen = 0;
        for (bool more = cursor.First(); more; more = cursor.Next(), seen++, expected++)
        {
            if (!ItemGenerator.Matches(expected, cursor.Key, cursor.Value))
            {
                failures.Add($"forward prefix scan: item {expected} is wrong");
                break;
            }
        }
        results.Add(("prefix scan forwards", seen, watch.Elapsed));
        if (seen != expectedInRange) failures.Add($"forward prefix scan saw {seen} items, expected {expectedInRange}");

        watch.Restart();
        expected = prefixStart + expectedInRange - 1;
        seen = 0;
        for (bool more = cursor.Last(); more; more = cursor.Previous(), seen++, expected--)
        {
            if (!ItemGenerator.Matches(expected, cursor.Key, cursor.Value))
            {
                failures.Add($"backward prefix scan: item {expected} is wrong");
                break;
            }
        }
        results.Add(("prefix scan backwards", seen, watch.Elapsed));
        if (seen != expectedInRange) failures.Add($"backward prefix scan saw {seen} items, expected {expectedInRange}");
    }

    // Disposing runs a final checkpoint (the data file is synced, the journal recycled) and closes the files.
    watch.Restart();
    env.Dispose();
    results.Add(("close (final checkpoint)", 0, watch.Elapsed));
}

// 4. Reopen and verify everything against the generator.
var reopenWatch = Stopwatch.StartNew();
using (env = StorageEnvironment.Open(options))
{
    results.Add(("reopen", 0, reopenWatch.Elapsed));
    using (var tx = env.BeginRead())
    {
        var tree = tx.OpenTree(TreeName);
        if (tree.Count != itemCount) failures.Add($"after reopening the tree counts {tree.Count} items, expected {itemCount}");

        var watch = Stopwatch.StartNew();
        long expected = 0;
        using var cursor = tree.CreateCursor();
        for (bool more = cursor.First(); more; more = cursor.Next(), expected++)
        {
            if (expected >= itemCount || !ItemGenerator.Matches(expected, cursor.Key, cursor.Value))
            {
                failures.Add($"full scan after reopening: item {expected} is wrong or extra");
                break;
            }
        }
        results.Add(("full scan after reopen (verified)", expected, watch.Elapsed));
        if (expected != itemCount) failures.Add($"full scan after reopening saw {expected} items, expected {itemCount}");
    }

    var checkWatch = Stopwatch.StartNew();
    var report = env.Check();
    results.Add(("env.Check()", report.EntryCount, checkWatch.Elapsed));
    log.LogInformation("Check: {Report}", report);
    if (!report.IsHealthy) failures.Add("env.Check() found problems: " + report);
}

// Flushes the console logger's queue so the summary below is not interleaved with log lines.
loggerFactory.Dispose();

Console.WriteLine();
Console.WriteLine($"QuickStart: {itemCount:N0} items (16-byte keys, 90-110-byte values) in {directory}");
Console.WriteLine();
Console.WriteLine($"  {"phase",-44} {"items",12} {"time",10} {"items/s",14}");
foreach (var (phase, items, elapsed) in results)
{
    string rate = items > 0 && elapsed > TimeSpan.Zero ? (items / elapsed.TotalSeconds).ToString("N0", CultureInfo.InvariantCulture) : "";
    string count = items > 0 ? items.ToString("N0", CultureInfo.InvariantCulture) : "";
    Console.WriteLine($"  {phase,-44} {count,12} {elapsed.TotalMilliseconds,8:N0} ms {rate,14}");
}

Console.WriteLine();
Console.WriteLine("Files:");
long totalBytes = 0;
foreach (var file in new DirectoryInfo(directory).GetFiles().OrderBy(f => f.Name, StringComparer.Ordinal))
{
    Console.WriteLine($"  {file.Name,-34} {file.Length / 1048576.0,10:N1} MiB");
    totalBytes += file.Length;
}
Console.WriteLine($"  {"total",-34} {totalBytes / 1048576.0,10:N1} MiB");
long dataBytes = new FileInfo(Path.Combine(directory, "data.sedb")).Length;
Console.WriteLine($"  logical data (keys + values) {logicalBytes / 1048576.0:N1} MiB; data file / logical = {(double)dataBytes / logicalBytes:N2}");
Console.WriteLine();

if (failures.Count > 0)
{
    Console.WriteLine($"FAILED ({failures.Count} problems):");
    foreach (var failure in failures.Take(20)) Console.WriteLine("  " + failure);
    return 1;
}
Console.WriteLine("OK: every item was read back intact after reopening, and env.Check() found no problems.");
return 0;
