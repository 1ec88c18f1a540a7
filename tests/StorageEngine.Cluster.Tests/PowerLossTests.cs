using StorageEngine.Cluster.Tests.Infrastructure;
using Xunit.Abstractions;

namespace StorageEngine.Cluster.Tests;

/// <summary>
/// Every node loses power at the same moment while clients write. Simulated: the nodes' Raft logs keep entries
/// DotNext has not flushed in the process's private memory, so SIGKILL to all three at once leaves on disk only
/// what a power loss would. Only the two followers come back: a write the leader acknowledged was in the log of
/// one of them at least, so it must survive on them alone.
/// </summary>
public sealed class PowerLossTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Cutting_power_to_every_node_at_once_loses_no_acknowledged_write()
    {
        int rounds = LongTests.Enabled ? 10 : 1;
        for (int round = 0; round < rounds; round++)
        {
            // No snapshot, so the followers' logs alone must hold every acknowledged write.
            await using var cluster = await TestCluster.StartAsync(snapshotInterval: 1_000_000, privateLogMemory: true);
            int leader = await cluster.WaitForLeaderAsync(TimeSpan.FromSeconds(30));
            int[] followers = [.. Enumerable.Range(0, cluster.Size).Where(i => i != leader)];
            await using var load = new WriteLoad(cluster, clients: 8);
            await load.WaitForAcknowledgedAsync(300 + 100 * round, TimeSpan.FromSeconds(60), cluster.Diagnostics);

            // The followers acknowledged through DurableWriteAheadLog, not around it.
            var synced = new List<long>();
            foreach (int follower in followers)
            {
                synced.Add((await cluster.StatusAsync(follower))?.SyncedAppends ?? 0);
                Assert.True(synced[^1] > 0, $"follower {follower} made no append durable before acknowledging it.{cluster.Diagnostics()}");
            }
            cluster.KillAll();
            int acknowledged = load.Acknowledged.Count;
            foreach (int follower in followers) await cluster.StartNodeAsync(follower);
            // Writes in flight at the kill end unknown, or acknowledged by the new leader; both are checked below.
            await load.StopAsync();
            int newLeader = await cluster.WaitForLeaderAsync(TimeSpan.FromSeconds(30), excluding: leader);
            await cluster.WaitForConvergenceAsync(TimeSpan.FromSeconds(60));
            await cluster.StopAllAsync();

            var entries = followers.Select(cluster.ReadEnvironment).ToList();
            Assert.Equal(entries[0], entries[1]);
            load.AssertOutcomes(entries[0]);
            output.WriteLine($"round {round}: leader {leader} and both followers killed at once after {acknowledged} acknowledged writes (the followers had synced {synced[0]} and {synced[1]} appends before acknowledging them); node {newLeader} leads the two followers, which hold all {load.Acknowledged.Count} acknowledged writes ({load.Unknown.Count} unknown, {load.NotApplied.Count} not applied)");
        }
    }
}
