using System.Diagnostics;
using StorageEngine;
using StorageEngine.Cluster;

/// <summary>
/// Durable writes of one 16-byte key and 100-byte value each: through the running three-node cluster (acknowledged
/// once committed by a majority and applied) and on one Safe environment in this process, with 1, 4 and 16
/// concurrent writers each waiting for its write before the next.
/// </summary>
internal static class Bench
{
    private static readonly int[] ClientCounts = [1, 4, 16];

    public static async Task<int> RunAsync(IReadOnlyList<ClusterMember> members, TimeSpan duration)
    {
        Console.WriteLine($"{"target",-26} {"clients",7} {"writes/s",9} {"p50 ms",7} {"p99 ms",7}");
        foreach (int clients in ClientCounts)
        {
            var latencies = await MeasureAsync(clients, duration, async worker =>
            {
                var client = new ClusterClient(members);
                long n = 0;
                return async () => await client.WriteAsync(new ClusterBatch().Put("bench", Key(worker, n++), Value));
            });
            Print("cluster (3 processes)", clients, duration, latencies);
        }

        string directory = Path.Combine(Path.GetTempPath(), "cluster-bench-" + Guid.NewGuid().ToString("N")[..8]);
        try
        {
            using var environment = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = directory, Durability = DurabilityMode.Safe });
            foreach (int clients in ClientCounts)
            {
                var latencies = await MeasureAsync(clients, duration, worker =>
                {
                    long n = 0;
                    return Task.FromResult<Func<Task>>(() =>
                    {
                        using var tx = environment.BeginWrite();
                        tx.CreateTree("bench").Put(System.Text.Encoding.UTF8.GetBytes(Key(worker, n++)), System.Text.Encoding.UTF8.GetBytes(Value));
                        tx.Commit();
                        return Task.CompletedTask;
                    });
                });
                Print("single node, Safe", clients, duration, latencies);
            }
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
        return 0;
    }

    private const string Value = "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789";

    private static string Key(int worker, long n) => $"w{worker:D3}-{n:D10}";

    private static async Task<List<double>> MeasureAsync(int clients, TimeSpan duration, Func<int, Task<Func<Task>>> createWriter)
    {
        var all = new List<double>();
        var clock = Stopwatch.StartNew();
        var tasks = Enumerable.Range(0, clients).Select(worker => Task.Run(async () =>
        {
            var write = await createWriter(worker);
            var mine = new List<double>();
            while (clock.Elapsed < duration)
            {
                long started = Stopwatch.GetTimestamp();
                try
                {
                    await write();
                    mine.Add(Stopwatch.GetElapsedTime(started).TotalMilliseconds);
                }
                catch (Exception e) when (e is WriteOutcomeUnknownException or TimeoutException)
                {
                    Console.Error.WriteLine($"a write failed, not counted: {e.GetType().Name}: {e.Message}");
                }
            }
            lock (all) all.AddRange(mine);
        })).ToArray();
        await Task.WhenAll(tasks);
        return all;
    }

    private static void Print(string target, int clients, TimeSpan duration, List<double> latencies)
    {
        latencies.Sort();
        double At(double q) => latencies.Count == 0 ? 0 : latencies[Math.Min(latencies.Count - 1, (int)(q * latencies.Count))];
        Console.WriteLine($"{target,-26} {clients,7} {latencies.Count / duration.TotalSeconds,9:0} {At(0.50),7:0.00} {At(0.99),7:0.00}");
    }
}
