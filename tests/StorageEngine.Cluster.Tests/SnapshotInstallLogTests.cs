using System.Diagnostics;
using System.Text;
using DotNext.IO.Log;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;
using StorageEngine.Cluster.Replication;
using StorageEngine.Cluster.Tests.Infrastructure;
using static StorageEngine.Cluster.Tests.Infrastructure.LogEntries;

namespace StorageEngine.Cluster.Tests;

/// <summary>
/// A follower's Raft log installing a leader's snapshot far past its last entry, the way a node that was down
/// catches up once the leader compacted its log (see the remarks of <see cref="DurableWriteAheadLog"/>).
/// </summary>
public sealed class SnapshotInstallLogTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "se-install-log-" + Guid.NewGuid().ToString("N")[..12]);

    [Fact]
    public async Task A_snapshot_installed_before_the_log_wrote_its_last_commit_to_the_checkpoint_leaves_the_log_working()
    {
        var machine = new InstallingStateMachine();
        var log = new DurableWriteAheadLog(Options(_root, WriteAheadLog.MemoryManagementStrategy.SharedMemory), machine);
        await using var _ = log;
        await log.InitializeAsync();
        IAuditTrail<IRaftLogEntry> raft = log; // the interface RaftCluster appends and installs through
        await raft.AppendAsync(new LogEntryProducer<BinaryLogEntry>([.. Enumerable.Range(1, 10).Select(index => Entry(index))]), 1, skipCommitted: true);
        await log.CommitAsync(5);
        await log.WaitForApplyAsync(5);

        try
        {
            // The leader's last AppendEntries commits the rest. The flusher's pass that is to write that commit
            // index to the checkpoint stops right after reading the snapshot index (none yet), as a late one does.
            var held = machine.HoldNextSnapshotRead();
            await log.CommitAsync(10);
            await held.WaitAsync(TimeSpan.FromSeconds(10));

            // The leader's snapshot at 1000: past this log's last entry, on a metadata page it never wrote.
            var install = raft.AppendAsync(new EmptySnapshot(1000, 1), 1000).AsTask();
            // DotNext alone installs it at once; the pass goes on only after that, and would flush up to entry 1000.
            var clock = Stopwatch.StartNew();
            while (log.LastEntryIndex != 1000 && clock.Elapsed < TimeSpan.FromMilliseconds(500))
                await Task.Delay(5);
            machine.ReleaseHeldRead();
            await install.WaitAsync(TimeSpan.FromSeconds(10));
        }
        finally
        {
            machine.ReleaseHeldRead();
        }

        Assert.Equal(1000, log.LastCommittedEntryIndex);
        await raft.AppendAsync(new LogEntryProducer<BinaryLogEntry>([Entry(1001)]), 1001, skipCommitted: true);
        await log.CommitAsync(1001);
        await log.WaitForApplyAsync(1001);
        Assert.Equal(Payload(1001), Encoding.UTF8.GetString(machine.Applied[1001]));
    }

    public void Dispose()
    {
        try
        {
            Directory.Delete(_root, recursive: true);
        }
        catch (IOException)
        {
        }
    }
}
