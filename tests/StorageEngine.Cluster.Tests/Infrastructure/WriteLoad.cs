using System.Collections.Concurrent;
using System.Diagnostics;

namespace StorageEngine.Cluster.Tests.Infrastructure;

/// <summary>
/// Clients writing unique keys ("w{client}-{n}") into tree "load" through the leader until stopped, each write's
/// outcome recorded: acknowledged (must survive), unknown (may or may not be applied) or not applied (must be absent).
/// </summary>
internal sealed class WriteLoad : IAsyncDisposable
{
    public const string Tree = "load";
    private readonly CancellationTokenSource _stop = new();
    private readonly Task[] _workers;
    private readonly List<long> _latencyTicks = [];

    public WriteLoad(TestCluster cluster, int clients, int putsPerWrite = 1)
    {
        _workers = Enumerable.Range(0, clients).Select(worker => Task.Run(async () =>
        {
            await using var client = cluster.NewClient(TimeSpan.FromSeconds(15));
            for (int sequence = 0; !_stop.IsCancellationRequested; sequence++)
            {
                string key = $"w{worker}-{sequence:D7}";
                string value = $"v{sequence}";
                var batch = new ClusterBatch();
                for (int i = 0; i < putsPerWrite; i++) batch.Put(Tree, i == 0 ? key : $"{key}.{i}", value);
                long started = Stopwatch.GetTimestamp();
                try
                {
                    await client.WriteAsync(batch);
                    Acknowledged[key] = value;
                    lock (_latencyTicks) _latencyTicks.Add(Stopwatch.GetTimestamp() - started);
                }
                catch (WriteOutcomeUnknownException)
                {
                    Unknown[key] = value;
                }
                catch (TimeoutException)
                {
                    NotApplied[key] = value;
                }
            }
        })).ToArray();
    }

    public ConcurrentDictionary<string, string> Acknowledged { get; } = new();

    public ConcurrentDictionary<string, string> Unknown { get; } = new();

    public ConcurrentDictionary<string, string> NotApplied { get; } = new();

    /// <summary>Waits until at least <paramref name="count"/> writes were acknowledged; returns how long that took.</summary>
    public async Task<TimeSpan> WaitForAcknowledgedAsync(int count, TimeSpan timeout, Func<string> diagnostics)
    {
        var clock = Stopwatch.StartNew();
        while (Acknowledged.Count < count)
        {
            if (clock.Elapsed > timeout)
                throw new TimeoutException($"Only {Acknowledged.Count} of {count} writes were acknowledged within {timeout}.{diagnostics()}");
            if (_workers.FirstOrDefault(w => w.IsFaulted) is { } failed) await failed;
            await Task.Delay(10);
        }
        return clock.Elapsed;
    }

    public async Task StopAsync()
    {
        await _stop.CancelAsync();
        await Task.WhenAll(_workers);
    }

    /// <summary>
    /// Asserts the outcome of every write against a node's entries (from <see cref="TestCluster.ReadEnvironment"/>):
    /// every acknowledged write is there with its value, nothing not applied is, and nothing else is there but
    /// writes whose outcome is unknown.
    /// </summary>
    public void AssertOutcomes(List<string> entries)
    {
        var present = entries.Where(e => e.StartsWith(Tree + " ", StringComparison.Ordinal))
            .Select(e => e.Split(' '))
            .ToDictionary(p => System.Text.Encoding.UTF8.GetString(Convert.FromHexString(p[1])), p => System.Text.Encoding.UTF8.GetString(Convert.FromHexString(p[2])));
        foreach (var (key, value) in Acknowledged)
        {
            Assert.True(present.TryGetValue(key, out var found), $"acknowledged write {key} is missing");
            Assert.Equal(value, found);
        }
        foreach (var key in NotApplied.Keys)
            Assert.False(present.ContainsKey(key), $"write {key} was reported not applied but is present");
        foreach (var key in present.Keys.Where(k => !k.Contains('.')))
            Assert.True(Acknowledged.ContainsKey(key) || Unknown.ContainsKey(key), $"{key} is present but was never acknowledged nor left unknown");
    }

    public (double P50, double P99) LatencyMilliseconds()
    {
        lock (_latencyTicks)
        {
            var sorted = _latencyTicks.Order().ToList();
            if (sorted.Count == 0) return (0, 0);
            double At(double q) => sorted[Math.Min(sorted.Count - 1, (int)(q * sorted.Count))] * 1000.0 / Stopwatch.Frequency;
            return (At(0.50), At(0.99));
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (!_stop.IsCancellationRequested) await StopAsync();
        _stop.Dispose();
    }
}
