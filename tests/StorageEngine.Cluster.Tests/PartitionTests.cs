using StorageEngine.Cluster.Tests.Infrastructure;
using Xunit.Abstractions;

namespace StorageEngine.Cluster.Tests;

/// <summary>
/// Nodes cut off with SIGSTOP: a frozen process is alive but answers nobody, which is what a node on the other
/// side of a network partition looks like to the rest.
/// </summary>
public sealed class PartitionTests(ITestOutputHelper output)
{
    [Fact]
    public async Task A_leader_cut_off_from_the_majority_acknowledges_no_write_and_serves_no_linearizable_read()
    {
        await using var cluster = await TestCluster.StartAsync();
        int leader = await cluster.WaitForLeaderAsync(TimeSpan.FromSeconds(30));
        await using (var client = cluster.NewClient())
            await client.WriteAsync(new ClusterBatch().Put("t", "before", "1"));

        int[] followers = [.. Enumerable.Range(0, cluster.Size).Where(i => i != leader)];
        foreach (int f in followers) cluster.Pause(f);
        string outcome;
        await using (var alone = cluster.NewClient(TimeSpan.FromSeconds(4), leader))
        {
            try
            {
                await alone.WriteAsync(new ClusterBatch().Put("t", "cut-off", "1"));
                outcome = "acknowledged";
            }
            catch (WriteOutcomeUnknownException e)
            {
                outcome = "unknown: " + e.Message;
            }
            catch (TimeoutException e)
            {
                outcome = "refused: " + e.Message;
            }
            Assert.False(outcome == "acknowledged", "a leader cut off from the majority acknowledged a write");
            await Assert.ThrowsAsync<TimeoutException>(() => alone.GetAsync("t", "before", ReadConsistency.Linearizable));
            Assert.Equal("1", await alone.GetAsync("t", "before", ReadConsistency.Local));
        }
        output.WriteLine($"write to the cut-off leader: {outcome}");

        foreach (int f in followers) cluster.Resume(f);
        await cluster.WaitForLeaderAsync(TimeSpan.FromSeconds(30));
        await using (var client = cluster.NewClient())
        {
            await client.WriteAsync(new ClusterBatch().Put("t", "after", "1"));
            Assert.Equal("1", await client.GetAsync("t", "after"));
        }
        await cluster.WaitForConvergenceAsync(TimeSpan.FromSeconds(60));
        await AssertEqualNodesAsync(cluster);
    }

    [Fact]
    public async Task A_stale_leader_that_comes_back_after_a_new_leader_was_elected_does_not_acknowledge_a_write_the_majority_lacks()
    {
        await using var cluster = await TestCluster.StartAsync();
        int old = await cluster.WaitForLeaderAsync(TimeSpan.FromSeconds(30));
        var clock = System.Diagnostics.Stopwatch.StartNew();
        cluster.Pause(old);
        int current = await cluster.WaitForLeaderAsync(TimeSpan.FromSeconds(30), excluding: old);
        output.WriteLine($"leader {old} frozen; node {current} seen leading after {clock.ElapsedMilliseconds} ms");
        await using (var client = cluster.NewClient(only: [current]))
            await client.WriteAsync(new ClusterBatch().Put("t", "new-term", "1"));

        // Thawed, the old leader still believes it leads until it hears the new term; it must not acknowledge.
        await using var stale = cluster.NewClient(TimeSpan.FromSeconds(2), old);
        var write = stale.WriteAsync(new ClusterBatch().Put("t", "stale", "1"));
        cluster.Resume(old);
        bool acknowledged;
        try
        {
            await write;
            acknowledged = true;
        }
        catch (Exception e) when (e is WriteOutcomeUnknownException or TimeoutException)
        {
            acknowledged = false;
        }

        output.WriteLine($"stale write answered at {clock.ElapsedMilliseconds} ms");
        await cluster.WaitForConvergenceAsync(TimeSpan.FromSeconds(60));
        output.WriteLine($"converged at {clock.ElapsedMilliseconds} ms");
        await using (var client = cluster.NewClient())
        {
            string? seen = await client.GetAsync("t", "stale", ReadConsistency.Linearizable);
            output.WriteLine($"write sent to the stale leader: {(acknowledged ? "acknowledged" : "not acknowledged")}; the majority reads {seen ?? "nothing"}");
            if (acknowledged) Assert.Equal("1", seen);
            Assert.Equal("1", await client.GetAsync("t", "new-term"));
        }
        await AssertEqualNodesAsync(cluster);
    }

    private static async Task AssertEqualNodesAsync(TestCluster cluster)
    {
        await cluster.StopAllAsync();
        var entries = Enumerable.Range(0, cluster.Size).Select(cluster.ReadEnvironment).ToList();
        for (int i = 1; i < cluster.Size; i++)
            Assert.Equal(entries[0], entries[i]);
    }
}
