using DotNext.IO.Log;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace StorageEngine.Cluster.Replication;

/// <summary>
/// DotNext's <see cref="WriteAheadLog"/> whose appends at a given index (what a follower does with the entries of
/// an AppendEntries request, and what a new configuration does) return only once the appended entries are on
/// disk: the pages are synced and the log's checkpoint, which names the last durable entry, is written through.
/// </summary>
/// <remarks>
/// DotNext 6.12's follower answers AppendEntries right after the append and a commit up to the leader's commit
/// index; its log flushes the entries beyond that index in the background, after the answer. The leader counts
/// the answer toward the majority, so without this a power loss of that majority could lose an acknowledged
/// write. The leader's own entries need no such wait: its <see cref="WriteAheadLog.CommitAsync"/> waits until the
/// log is flushed up to the index it commits, so nothing is applied, nor any client answered, before the
/// leader's copy is durable too. <see cref="IPersistentState"/> cannot be implemented outside DotNext (one of its
/// members is internal), so this re-implements the one interface RaftCluster appends through,
/// <see cref="IAuditTrail{TEntry}"/>, and leaves every other member to the base class.
/// </remarks>
internal sealed class DurableWriteAheadLog : WriteAheadLog, IAuditTrail<IRaftLogEntry>
{
    private long _syncedAppends;

    public DurableWriteAheadLog(Options configuration, IStateMachine stateMachine)
        : base(configuration, stateMachine)
    {
    }

    /// <summary>Appends at a given index that waited for the log's flush (for tests and diagnostics).</summary>
    public long SyncedAppends => Interlocked.Read(ref _syncedAppends);

    /// <summary>Called after each synced append with the log's last index, before the append returns (tests observe the moment of the acknowledgement).</summary>
    internal Action<long>? AppendSynced { get; set; }

    async ValueTask IAuditTrail<IRaftLogEntry>.AppendAsync<TEntry>(ILogEntryProducer<TEntry> entries, long startIndex, bool skipCommitted, CancellationToken token)
    {
        // A heartbeat carries no entries: nothing to make durable, and it must stay cheap. The last index is
        // compared too, so that a producer that under-reports its count still gets its entries synced.
        bool hasEntries = entries.RemainingCount > 0;
        long lastBefore = LastEntryIndex;
        await AppendAsync(entries, startIndex, skipCommitted, token).ConfigureAwait(false);
        if (hasEntries || LastEntryIndex != lastBefore)
            await SyncAsync(token).ConfigureAwait(false);
    }

    async ValueTask IAuditTrail<IRaftLogEntry>.AppendAsync<TEntry>(TEntry entry, long startIndex, CancellationToken token)
    {
        await AppendAsync(entry, startIndex, token).ConfigureAwait(false);
        await SyncAsync(token).ConfigureAwait(false);
    }

    private async ValueTask SyncAsync(CancellationToken token)
    {
        // FlushAsync waits until the background flusher has synced every page up to the last entry and written
        // the checkpoint (commit index and last index) through to the disk; a restart recovers up to it.
        await FlushAsync(token).ConfigureAwait(false);
        Interlocked.Increment(ref _syncedAppends);
        AppendSynced?.Invoke(LastEntryIndex);
    }
}
