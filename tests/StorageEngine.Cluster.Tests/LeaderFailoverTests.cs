using System.Diagnostics;
using StorageEngine.Cluster.Tests.Infrastructure;
using Xunit.Abstractions;

namespace StorageEngine.Cluster.Tests;

/// <summary>Three node processes; the leader is killed with SIGKILL while four clients write through it.</summary>
public sealed class LeaderFailoverTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Killing_the_leader_during_a_write_load_elects_a_new_one_loses_no_acknowledged_write_and_leaves_every_node_equal()
    {
        await using var cluster = await TestCluster.StartAsync(snapshotInterval: 400);
        int leader = await cluster.WaitForLeaderAsync(TimeSpan.FromSeconds(30));
        await using var load = new WriteLoad(cluster, clients: 4);
        await load.WaitForAcknowledgedAsync(300, TimeSpan.FromSeconds(60), cluster.Diagnostics);

        int before = load.Acknowledged.Count;
        var sinceKill = Stopwatch.StartNew();
        cluster.Kill(leader);
        int newLeader = await cluster.WaitForLeaderAsync(TimeSpan.FromSeconds(30), excluding: leader);
        var elected = sinceKill.Elapsed;
        await load.WaitForAcknowledgedAsync(before + 1, TimeSpan.FromSeconds(30), cluster.Diagnostics);
        var firstWrite = sinceKill.Elapsed;
        await load.WaitForAcknowledgedAsync(before + 300, TimeSpan.FromSeconds(60), cluster.Diagnostics);

        await cluster.StartNodeAsync(leader);
        await load.WaitForAcknowledgedAsync(load.Acknowledged.Count + 200, TimeSpan.FromSeconds(60), cluster.Diagnostics);
        await load.StopAsync();
        await cluster.WaitForConvergenceAsync(TimeSpan.FromSeconds(60));
        output.WriteLine($"leader {leader} killed; node {newLeader} seen leading after {elected.TotalMilliseconds:0} ms, first write acknowledged after {firstWrite.TotalMilliseconds:0} ms");
        output.WriteLine($"{load.Acknowledged.Count} acknowledged, {load.Unknown.Count} unknown, {load.NotApplied.Count} not applied");

        await cluster.StopAllAsync();
        var entries = Enumerable.Range(0, cluster.Size).Select(cluster.ReadEnvironment).ToList();
        for (int i = 1; i < cluster.Size; i++)
            Assert.Equal(entries[0], entries[i]);
        load.AssertOutcomes(entries[0]);
    }
}
