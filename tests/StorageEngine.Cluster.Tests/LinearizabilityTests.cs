using System.Collections.Concurrent;
using System.Diagnostics;
using StorageEngine.Cluster.Tests.Infrastructure;
using StorageEngine.Cluster.Tests.Linearizability;
using Xunit.Abstractions;

namespace StorageEngine.Cluster.Tests;

/// <summary>
/// Three clients write and read three registers (linearizable reads, any node) while the leader is killed and
/// restarted at seeded moments; the recorded history must be linearizable. Two seeds by default,
/// twenty longer ones with STORAGEENGINE_LONG_TESTS=1.
/// </summary>
public sealed class LinearizabilityTests(ITestOutputHelper output)
{
    public static TheoryData<int> Seeds => [.. Enumerable.Range(1, LongTests.Enabled ? 20 : 2)];

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task Registers_stay_linearizable_while_the_leader_is_killed_and_restarted(int seed)
    {
        var random = new Random(seed);
        var duration = TimeSpan.FromSeconds(LongTests.Enabled ? 15 : 5);
        await using var cluster = await TestCluster.StartAsync(snapshotInterval: 200);
        await cluster.WaitForLeaderAsync(TimeSpan.FromSeconds(30));
        var history = new ConcurrentBag<RegisterOperation>();
        var clock = Stopwatch.StartNew();

        var clients = Enumerable.Range(0, 3).Select(id => Task.Run(async () =>
        {
            var choices = new Random(seed * 1000 + id);
            await using var client = cluster.NewClient(TimeSpan.FromSeconds(5));
            for (int n = 0; clock.Elapsed < duration; n++)
            {
                string key = $"r{choices.Next(3)}";
                long invoked = clock.ElapsedTicks;
                if (choices.Next(2) == 0)
                {
                    string value = $"c{id}-{n}";
                    try
                    {
                        await client.WriteAsync(new ClusterBatch().Put("registers", key, value));
                        history.Add(new RegisterOperation(id, key, true, value, invoked, clock.ElapsedTicks));
                    }
                    catch (WriteOutcomeUnknownException)
                    {
                        history.Add(new RegisterOperation(id, key, true, value, invoked, long.MaxValue));
                    }
                    catch (TimeoutException)
                    {
                        // Not applied: no effect to record.
                    }
                }
                else
                {
                    try
                    {
                        string? value = await client.GetAsync("registers", key, ReadConsistency.Linearizable);
                        history.Add(new RegisterOperation(id, key, false, value, invoked, clock.ElapsedTicks));
                    }
                    catch (TimeoutException)
                    {
                    }
                }
            }
        })).ToArray();

        await Task.Delay(duration * (0.2 + 0.2 * random.NextDouble()));
        int leader = await cluster.WaitForLeaderAsync(TimeSpan.FromSeconds(10));
        cluster.Kill(leader);
        await Task.Delay(duration * (0.2 + 0.2 * random.NextDouble()));
        await cluster.StartNodeAsync(leader);
        await Task.WhenAll(clients);

        var operations = history.ToList();
        output.WriteLine($"seed {seed}: leader {leader} killed and restarted; {operations.Count(o => o.IsWrite && !o.IsPending)} writes, " +
                         $"{operations.Count(o => o.IsPending)} of unknown outcome, {operations.Count(o => !o.IsWrite)} reads");
        Assert.True(operations.Count(o => !o.IsWrite) > 10, "too few reads to check anything");
        Assert.Null(RegisterChecker.Check(operations));
    }
}
