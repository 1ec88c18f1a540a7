using System.Text;
using DotNext.IO.Log;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;
using StorageEngine.Cluster.Replication;
using StorageEngine.Cluster.Tests.Infrastructure;
using static StorageEngine.Cluster.Tests.Infrastructure.LogEntries;

namespace StorageEngine.Cluster.Tests;

/// <summary>
/// What a node's Raft log holds on disk at the moment it acknowledges entries. The log runs with DotNext's private
/// memory, where an appended entry lives in the process's own memory until DotNext flushes it to the file: a copy
/// of the log's files taken when the append returns is exactly what a crash that takes the memory (a power loss)
/// would leave, and a log opened on that copy must hold every entry the node acknowledged.
/// </summary>
public sealed class DurableLogTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "se-durable-log-" + Guid.NewGuid().ToString("N")[..12]);

    [Fact]
    public async Task Entries_a_follower_appends_are_on_disk_when_the_append_returns()
    {
        var log = Open("node");
        await using var _ = log;
        IAuditTrail<IRaftLogEntry> raft = log; // the interface RaftCluster's AppendEntries handler appends through
        int synced = 0;
        long lastSynced = 0;
        log.AppendSynced = index => { synced++; lastSynced = index; };

        for (int batch = 0; batch < 20; batch++)
        {
            long start = log.LastEntryIndex + 1;
            var entries = Enumerable.Range(0, 1 + batch % 4).Select(i => Entry(start + i)).ToArray();
            await raft.AppendAsync(new LogEntryProducer<BinaryLogEntry>(entries), start, skipCommitted: true);
            long last = start + entries.Length - 1;
            Assert.Equal(last, lastSynced);

            // Nothing was committed, so DotNext's own commit-time flush had no part in this.
            var survivor = await ReopenCopyAsync("node", "after-append-" + batch);
            await using (survivor.Log)
            {
                Assert.Equal(last, survivor.Log.LastEntryIndex);
                Assert.Equal(0, survivor.Log.LastCommittedEntryIndex);
                await survivor.Log.CommitAsync(last);
                await survivor.Log.WaitForApplyAsync(last);
                for (long index = 1; index <= last; index++)
                    Assert.Equal(Payload(index), Encoding.UTF8.GetString(survivor.StateMachine.Applied[index]));
            }
        }
        Assert.Equal(20, synced);
        Assert.Equal(20, log.SyncedAppends);
    }

    [Fact]
    public async Task A_heartbeat_without_entries_does_not_wait_for_a_flush()
    {
        var log = Open("node");
        await using var _ = log;
        IAuditTrail<IRaftLogEntry> raft = log;
        await raft.AppendAsync(new LogEntryProducer<BinaryLogEntry>([Entry(1)]), 1, skipCommitted: true);
        await raft.AppendAsync(new LogEntryProducer<BinaryLogEntry>(), 2, skipCommitted: true);
        Assert.Equal(1, log.SyncedAppends);
    }

    [Fact]
    public async Task An_entry_that_replaces_a_conflicting_one_is_on_disk_when_the_append_returns()
    {
        var log = Open("node");
        await using var _ = log;
        IAuditTrail<IRaftLogEntry> raft = log;
        await raft.AppendAsync(new LogEntryProducer<BinaryLogEntry>([Entry(1), Entry(2), Entry(3)]), 1, skipCommitted: true);
        // A new leader's entry at index 2 of a later term replaces entries 2 and 3.
        var replacement = new BinaryLogEntry { Content = Encoding.UTF8.GetBytes("replaced"), Term = 2 };
        await raft.AppendAsync(new LogEntryProducer<BinaryLogEntry>([replacement]), 2, skipCommitted: true);

        var survivor = await ReopenCopyAsync("node", "after-replace");
        await using (survivor.Log)
        {
            Assert.Equal(2, survivor.Log.LastEntryIndex);
            await survivor.Log.CommitAsync(2);
            await survivor.Log.WaitForApplyAsync(2);
            Assert.Equal("replaced", Encoding.UTF8.GetString(survivor.StateMachine.Applied[2]));
        }
    }

    [Fact]
    public async Task The_leader_commits_an_entry_only_once_its_own_copy_is_on_disk()
    {
        // The leader appends without waiting (it replicates at once) and counts its own copy toward the majority;
        // DotNext's commit waits for the flush up to the committed index, so the commit index, the apply and the
        // client's answer all come after the leader's copy is durable. (The commit index itself is written to
        // the checkpoint later, in the background; Raft does not need it on disk: a restarted node learns it
        // from the leader.)
        var log = Open("leader");
        await using var _ = log;
        for (int i = 1; i <= 10; i++)
        {
            long index = await log.AppendAsync(Entry(i));
            await log.CommitAsync(index);
            var survivor = await ReopenCopyAsync("leader", "after-commit-" + i);
            await using (survivor.Log)
            {
                Assert.Equal(index, survivor.Log.LastEntryIndex);
                await survivor.Log.CommitAsync(index);
                await survivor.Log.WaitForApplyAsync(index);
                Assert.Equal(Payload(index), Encoding.UTF8.GetString(survivor.StateMachine.Applied[index]));
            }
        }
        Assert.Equal(0, log.SyncedAppends);
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

    // Private memory: an entry is in the files only once DotNext flushed it, as after a power loss.
    private static WriteAheadLog.Options Options(string location) => LogEntries.Options(location, WriteAheadLog.MemoryManagementStrategy.PrivateMemory);

    private DurableWriteAheadLog Open(string name)
    {
        var log = new DurableWriteAheadLog(Options(Path.Combine(_root, name)), new RecordingStateMachine());
        log.InitializeAsync().GetAwaiter().GetResult();
        return log;
    }

    /// <summary>Copies the log's files as they are now and opens a plain WriteAheadLog on the copy.</summary>
    private async Task<(WriteAheadLog Log, RecordingStateMachine StateMachine)> ReopenCopyAsync(string source, string name)
    {
        string to = Path.Combine(_root, name);
        CopyDirectory(Path.Combine(_root, source), to);
        var stateMachine = new RecordingStateMachine();
        var log = new WriteAheadLog(Options(to), stateMachine);
        await log.InitializeAsync();
        return (log, stateMachine);
    }

    private static void CopyDirectory(string from, string to)
    {
        Directory.CreateDirectory(to);
        foreach (string file in Directory.GetFiles(from))
            File.Copy(file, Path.Combine(to, Path.GetFileName(file)));
        foreach (string directory in Directory.GetDirectories(from))
            CopyDirectory(directory, Path.Combine(to, Path.GetFileName(directory)));
    }
}
