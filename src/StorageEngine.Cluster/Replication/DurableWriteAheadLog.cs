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
/// <para>
/// It also works around a race in DotNext 6.12.0's log, met when a follower that is behind installs the leader's
/// snapshot. A pass of the log's background flusher reads the state machine's snapshot index, decides from it whether
/// there is anything to write (entries not yet flushed, or a commit index not yet in the checkpoint), and only then
/// takes the log's read lock. A snapshot install holds the log's exclusive lock while the state machine restores the
/// snapshot, then moves the log's last index up to the snapshot's index, past the follower's last entry. A pass that
/// read the old snapshot index and waited for the read lock meanwhile flushes the entries up to that new last index,
/// entries this follower never had: reading the metadata of the last one throws "WAL page N doesn't exist on the disk"
/// (<see cref="WriteAheadLog.MissingPageException"/>). The flusher stops for good, every later use of the log throws
/// the same error, and the node can neither take entries nor stand for election (RaftCluster turns the failure into a
/// permanent UnreachableException). A follower has such a pass coming when the snapshot arrives before the flusher
/// wrote the commit index of the leader's last AppendEntries (or of the previous snapshot) to the checkpoint, as when
/// the flusher runs late on a busy machine. So before it installs a snapshot, this log waits until the flusher has
/// nothing to write (<see cref="FlusherState"/>). Nothing gives it more until the install is done: DotNext handles a
/// follower's AppendEntries (its only appends and commits) and snapshots one at a time, and a snapshot the state
/// machine takes itself is of committed entries, which leaves nothing to write. The flusher's next pass reads the new
/// snapshot index, and with it finds nothing to flush below it.
/// </para>
/// </remarks>
internal sealed class DurableWriteAheadLog : WriteAheadLog, IAuditTrail<IRaftLogEntry>
{
    private readonly ISnapshotManager _snapshots;
    private long _syncedAppends;

    // Before the first log starts its background tasks, which a constructor that threw would leave running.
    static DurableWriteAheadLog() => FlusherState.EnsureSupported();

    public DurableWriteAheadLog(Options configuration, IStateMachine stateMachine)
        : base(configuration, stateMachine)
    {
        _snapshots = stateMachine;
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
        // RaftCluster appends through this overload only the leader's snapshot (InstallSnapshot); the remarks say
        // why it waits first.
        if (entry.IsSnapshot)
            await WaitUntilFlusherIdleAsync(token).ConfigureAwait(false);
        await AppendAsync(entry, startIndex, token).ConfigureAwait(false);
        await SyncAsync(token).ConfigureAwait(false);
    }

    /// <summary>Waits until the log's background flusher has flushed every entry and written the commit index to the checkpoint.</summary>
    private async ValueTask WaitUntilFlusherIdleAsync(CancellationToken token)
    {
        while (FlusherHasWork())
        {
            // Throws the log's own failure, if it has one, rather than wait for a flusher that has stopped.
            await WaitForApplyAsync(0, token).ConfigureAwait(false);
            // Wakes the flusher; returns at once when what is left is a commit index to write.
            await FlushAsync(token).ConfigureAwait(false);
            await Task.Delay(1, token).ConfigureAwait(false);
        }
    }

    /// <summary>DotNext 6.12.0's own test, at the start of a flusher pass, of whether the pass has anything to write.</summary>
    private bool FlusherHasWork()
    {
        var (unflushedIndex, flushedCommitIndex) = FlusherState.Read(this);
        long snapshotIndex = _snapshots.Snapshot?.Index ?? 0;
        return long.Max(LastEntryIndex, snapshotIndex) >= long.Max(snapshotIndex + 1, unflushedIndex)
            || long.Max(snapshotIndex, LastCommittedEntryIndex) != flushedCommitIndex;
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
