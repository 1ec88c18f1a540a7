using StorageEngine.Cluster.Tests.Infrastructure;

namespace StorageEngine.Cluster.Tests;

/// <summary>Each committed entry changes a node's environment once, however often the log is replayed.</summary>
public sealed class ExactlyOnceTests
{
    [Fact]
    public async Task Restarting_every_node_replays_the_log_without_applying_any_entry_a_second_time()
    {
        // No snapshot: a restarted node's log replays every committed entry from the first.
        await using var cluster = await TestCluster.StartAsync(snapshotInterval: 1_000_000);
        await cluster.WaitForLeaderAsync(TimeSpan.FromSeconds(30));
        await using (var load = new WriteLoad(cluster, clients: 4))
            await load.WaitForAcknowledgedAsync(200, TimeSpan.FromSeconds(60), cluster.Diagnostics);
        await cluster.WaitForConvergenceAsync(TimeSpan.FromSeconds(60));
        await cluster.StopAllAsync();
        var before = Enumerable.Range(0, cluster.Size).Select(i => LastTransaction(cluster, i)).ToList();
        var entries = cluster.ReadEnvironment(0);

        for (int i = 0; i < cluster.Size; i++) await cluster.StartNodeAsync(i);
        await cluster.WaitForLeaderAsync(TimeSpan.FromSeconds(30));
        await cluster.WaitForConvergenceAsync(TimeSpan.FromSeconds(60));
        await cluster.StopAllAsync();

        for (int i = 0; i < cluster.Size; i++)
        {
            Assert.Equal(before[i], LastTransaction(cluster, i));
            Assert.Equal(entries, cluster.ReadEnvironment(i));
        }
    }

    private static long LastTransaction(TestCluster cluster, int node)
    {
        using var environment = StorageEnvironment.Open(ClusterNode.GetEnvironmentDirectory(cluster.DataDirectory(node)));
        return environment.LastCommittedTransactionId;
    }
}
