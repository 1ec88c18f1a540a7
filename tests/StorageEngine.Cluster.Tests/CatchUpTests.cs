using System.Diagnostics;
using StorageEngine.Cluster.Tests.Infrastructure;
using Xunit.Abstractions;

namespace StorageEngine.Cluster.Tests;

/// <summary>A follower stopped while the others take thousands of writes catches up when it comes back.</summary>
public sealed class CatchUpTests(ITestOutputHelper output)
{
    private static int Writes => LongTests.Enabled ? 10_000 : 2_000;

    [Fact]
    public async Task A_follower_stopped_for_thousands_of_writes_catches_up_from_the_log()
    {
        var (installed, _) = await StopWriteRestartAsync(snapshotInterval: 1_000_000, kill: false);
        Assert.Equal(0, installed);
    }

    [Fact]
    public async Task A_follower_killed_for_thousands_of_writes_catches_up_from_a_snapshot_once_the_log_was_compacted_past_it()
    {
        var (installed, taken) = await StopWriteRestartAsync(snapshotInterval: 500, kill: true);
        Assert.True(taken >= 1, "the leader took no snapshot");
        Assert.True(installed >= 1, "the follower caught up without a snapshot: the leader's log was not compacted past it");
    }

    private async Task<(int Installed, int Taken)> StopWriteRestartAsync(long snapshotInterval, bool kill)
    {
        await using var cluster = await TestCluster.StartAsync(snapshotInterval: snapshotInterval);
        int leader = await cluster.WaitForLeaderAsync(TimeSpan.FromSeconds(30));
        int follower = (leader + 1) % cluster.Size;
        await using (var warmUp = new WriteLoad(cluster, clients: 2))
            await warmUp.WaitForAcknowledgedAsync(50, TimeSpan.FromSeconds(30), cluster.Diagnostics);

        if (kill) cluster.Kill(follower);
        else await cluster.StopNodeAsync(follower);
        long behind = (await cluster.StatusAsync(leader))!.Applied;
        await using var load = new WriteLoad(cluster, clients: 16);
        await load.WaitForAcknowledgedAsync(Writes, TimeSpan.FromSeconds(120), cluster.Diagnostics);
        await load.StopAsync();
        var leaderStatus = (await cluster.StatusAsync(leader))!;
        long missed = leaderStatus.Applied - behind;

        var clock = Stopwatch.StartNew();
        await cluster.StartNodeAsync(follower);
        var ready = clock.Elapsed;
        await cluster.WaitForConvergenceAsync(TimeSpan.FromSeconds(120));
        var caughtUp = clock.Elapsed - ready;
        var followerStatus = (await cluster.StatusAsync(follower))!;
        output.WriteLine($"follower {(kill ? "killed" : "stopped")} for {missed} entries; process ready after {ready.TotalMilliseconds:0} ms, " +
                         $"caught up {caughtUp.TotalMilliseconds:0} ms later ({missed / caughtUp.TotalSeconds:0} entries/s, convergence polling every 200 ms included); snapshots installed {followerStatus.SnapshotsInstalled}, taken by the leader {leaderStatus.SnapshotsTaken}");

        await cluster.StopAllAsync();
        var entries = Enumerable.Range(0, cluster.Size).Select(cluster.ReadEnvironment).ToList();
        for (int i = 1; i < cluster.Size; i++)
            Assert.Equal(entries[0], entries[i]);
        load.AssertOutcomes(entries[follower]);
        return (followerStatus.SnapshotsInstalled, leaderStatus.SnapshotsTaken);
    }
}
