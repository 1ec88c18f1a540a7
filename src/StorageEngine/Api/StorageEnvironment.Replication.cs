using System.IO.Pipelines;
using StorageEngine.Journal;
using StorageEngine.Platform;
using StorageEngine.Replication;
using StorageEngine.Transactions;

namespace StorageEngine;

// Replicas: opened from a restored backup, they apply their primary's shipped transactions through the commit
// pipeline and refuse local writers until promoted.
public sealed partial class StorageEnvironment
{
    /// <summary>Set on the thread of an internal write (the replica's applier, the checker) so that a replica lets it in.</summary>
    [ThreadStatic] private static bool t_internalWrite;

    private volatile bool _isReplica;
    private int _applying;
    private ReplicaReuseGuard? _reuseGuard;

    /// <summary>
    /// Opens a replica: an environment restored from a backup of a primary
    /// (<see cref="RestoreAsync(PipeReader, string, IProgress{BackupProgress}?, CancellationToken)"/>) that takes
    /// the primary's transactions through <see cref="ApplyReplicationStreamAsync"/> and refuses local write
    /// transactions. It serves read transactions on consistent snapshots as any environment does, journals what
    /// it applies (so it recovers after a crash like a primary) and resumes from
    /// <see cref="LastCommittedTransactionId"/>.
    /// </summary>
    /// <exception cref="StorageException">The directory holds no environment (restore a backup there first).</exception>
    /// <exception cref="ArgumentException">The options ask for a read-only open.</exception>
    public static StorageEnvironment OpenReplica(StorageEnvironmentOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.ReadOnly)
            throw new ArgumentException("A replica writes the transactions it applies, so it cannot be opened ReadOnly.", nameof(options));
        var fs = options.FileSystem ?? new OsFileSystem();
        string directory = options.Path ?? throw new ArgumentException("A replica needs StorageEnvironmentOptions.Path.", nameof(options));
        if (!fs.Exists(Path.Combine(directory, EnvironmentFiles.DataFileName)))
            throw new StorageException($"There is no environment in '{directory}' to open as a replica: restore a backup of the primary there first (StorageEnvironment.RestoreAsync).");
        var environment = new StorageEnvironment(options.Clone());
        environment._reuseGuard = new ReplicaReuseGuard(environment.PageSize);
        environment._isReplica = true;
        return environment;
    }

    /// <summary>True for an environment opened with <see cref="OpenReplica"/> and not promoted: it refuses local write transactions.</summary>
    public bool IsReplica => _isReplica;

    /// <summary>Refuses local writers on a replica (internal writes pass).</summary>
    private void ThrowIfReplicaWrite()
    {
        if (_isReplica && !t_internalWrite)
            throw new InvalidOperationException($"Cannot start a write transaction: the environment in '{Directory}' is a replica and takes only its primary's transactions (ApplyReplicationStreamAsync). Write to the primary, or call PromoteToPrimary first.");
    }

    /// <summary>The write lock as a write transaction, also on a replica: for the applier and for checks.</summary>
    internal WriteTransaction BeginInternalWrite()
    {
        t_internalWrite = true;
        try
        {
            return BeginWrite();
        }
        finally
        {
            t_internalWrite = false;
        }
    }

    /// <summary>
    /// Applies a journal shipping stream from the primary (see <see cref="ShipJournalAsync"/>) until it ends,
    /// one transaction at a time: each record is verified whole, journaled in this replica's own journal,
    /// written and published like a commit, so readers see every transaction whole or not at all. Records this
    /// replica already has are skipped, so a stream may start earlier than <see cref="LastCommittedTransactionId"/>.
    /// A replica reader on an old snapshot holds back a transaction that reuses pages it may still read (the
    /// primary's rule for its own readers).
    /// </summary>
    /// <param name="source">The stream; read until it completes.</param>
    /// <param name="cancellationToken">Stops between or inside records; a record cut short is not applied.</param>
    /// <returns>The last transaction applied (<see cref="LastCommittedTransactionId"/>).</returns>
    /// <exception cref="ReplicationException">
    /// The stream is of another environment or page size, starts past this replica's last transaction (a gap), or
    /// the replica diverged from the primary. Nothing of the offending record was applied.
    /// </exception>
    /// <exception cref="CorruptionException">
    /// A record fails its checksum or structure check, or the stream ends inside one (truncated). Records before it
    /// were applied; nothing of it was.
    /// </exception>
    /// <exception cref="InvalidOperationException">The environment is not a replica, or another stream is being applied.</exception>
    public async Task<long> ApplyReplicationStreamAsync(PipeReader source, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(source);
        ThrowIfDisposed();
        if (!_isReplica)
            throw new InvalidOperationException($"The environment in '{Directory}' is not a replica: open a restored backup of the primary with StorageEnvironment.OpenReplica to apply its stream.");
        if (Interlocked.Exchange(ref _applying, 1) != 0)
            throw new InvalidOperationException("Another replication stream is being applied to this replica (or it is being promoted); apply one stream at a time.");
        try
        {
            if (!_isReplica) throw new InvalidOperationException($"The environment in '{Directory}' was promoted to a primary; it applies no replication stream.");
            using var reader = new ShippingStreamReader(new StreamInput(source, "replication stream"), PageSize);
            CheckStreamHeader(await reader.ReadHeaderAsync(cancellationToken).ConfigureAwait(false));
            var freed = new List<long>();
            var taken = new List<long>();
            while (await reader.ReadRecordAsync(cancellationToken).ConfigureAwait(false) is { } record)
            {
                var current = _commits.Published;
                if (record.TransactionId <= current.TransactionId) continue;
                if (record.TransactionId != current.TransactionId + 1)
                {
                    throw new ReplicationException(
                        $"The replication stream skips from transaction {current.TransactionId} to {record.TransactionId} (at offset {record.StreamOffset}): a gap. Ship from transaction {current.TransactionId}.");
                }
                if (record.PreviousStateChecksum is { } expected && expected != StateChecksum(current.State))
                {
                    throw new ReplicationException(
                        $"This replica's state at transaction {current.TransactionId} differs from the primary's: it diverged (written to without being a replica, " +
                        "or the primary lost a Lazy tail after shipping it). Restore a new full backup of the primary.", requiresFullBackup: true);
                }
                RebuildDiffs(reader, record);
                freed.Clear();
                taken.Clear();
                long required = InspectReuse(record, freed, taken);
                while (_readers.Oldest() < required) await Task.Delay(1, cancellationToken).ConfigureAwait(false);
                using (BeginInternalWrite())
                {
                    ApplyReplicatedTransaction(record.State, record.Runs);
                }
                _reuseGuard!.Applied(record.TransactionId, freed, taken);
            }
            return LastCommittedTransactionId;
        }
        finally
        {
            Volatile.Write(ref _applying, 0);
        }
    }

    /// <summary>Refuses a stream of another environment or page size, or one that starts past this replica's last transaction.</summary>
    private void CheckStreamHeader(ShippingStreamHeader header)
    {
        if (header.EnvironmentId != Header.EnvironmentId)
        {
            throw new ReplicationException(
                $"The replication stream comes from another environment (id {header.EnvironmentId:X16}); this replica is a copy of environment {Header.EnvironmentId:X16}. " +
                "Restore a backup of the stream's primary to replicate it.", requiresFullBackup: true);
        }
        if (header.PageSize != PageSize)
            throw new ReplicationException($"The replication stream has {header.PageSize}-byte pages; this replica has {PageSize}-byte pages.", requiresFullBackup: true);
        if (header.AfterTransactionId > LastCommittedTransactionId)
        {
            throw new ReplicationException(
                $"The replication stream starts after transaction {header.AfterTransactionId}, but this replica's last transaction is {LastCommittedTransactionId}: " +
                $"transactions in between would be missing. Ship from transaction {LastCommittedTransactionId}.");
        }
    }

    /// <summary>Pages the primary shipped as diffs, rebuilt on this replica's own copies of their base pages.</summary>
    private unsafe void RebuildDiffs(ShippingStreamReader reader, ReplicatedRecord record)
    {
        var current = _commits.Published;
        reader.RebuildDiffs(record, current.Base, current.State.PageCount);
    }

    /// <summary>
    /// The transaction the oldest reader must have reached before <paramref name="record"/> may overwrite pages
    /// (see <see cref="ReplicaReuseGuard"/>); lists the pages it frees and takes.
    /// </summary>
    private unsafe long InspectReuse(ReplicatedRecord record, List<long> freed, List<long> taken)
    {
        var guard = _reuseGuard!;
        guard.Release(_readers.Oldest());
        var current = _commits.Published;
        return guard.Inspect(current.Base, current.State.PageCount, record.Runs, freed, taken);
    }

    /// <summary>
    /// Applies one transaction shipped from the primary as if this environment had committed it, through the one
    /// commit path (<see cref="CommitPipeline.Apply"/>): its record (the primary's page images and state, unchanged)
    /// goes to this environment's journal, the pages into the data file, then the new snapshot is published and
    /// shipping sessions of this environment are woken. The caller holds the write lock (a transaction from
    /// <see cref="BeginInternalWrite"/>, never committed) and has verified the record. The pages are the primary's,
    /// page for page: a replica is restored from the primary's backup, so its page numbers match.
    /// </summary>
    /// <exception cref="StorageException">Writing failed; the replica must be reopened (recovery keeps what was journaled).</exception>
    internal void ApplyReplicatedTransaction(EnvironmentState state, List<JournalPageRun> runs)
    {
        var current = _commits.Published;
        if (state.TransactionId != current.TransactionId + 1)
            throw new ReplicationException($"Transaction {state.TransactionId} cannot follow transaction {current.TransactionId}.");
        _commits.Apply(state, runs);
        ReloadFreeSpace(_commits.Published);
    }

    /// <summary>The bitmap pages were replaced by the primary's: recount the free-space map from them.</summary>
    private unsafe void ReloadFreeSpace(Snapshot snapshot)
    {
        var source = PageSourceFor(snapshot);
        _freeSpace.Load(new PageWriter(snapshot, source, null, _freeSpace, _pool, null, snapshot.TransactionId), snapshot.State.PageCount, snapshot.TransactionId);
    }

    /// <summary>
    /// Turns a replica into an ordinary environment that accepts write transactions (after its primary is gone).
    /// Waits (up to <see cref="StorageEnvironmentOptions.WriteTimeout"/>) until no reader predates the primary's
    /// most recent page frees, since the local writer will reuse those pages, then checkpoints.
    /// </summary>
    /// <exception cref="InvalidOperationException">It is not a replica, or a replication stream is being applied.</exception>
    /// <exception cref="TimeoutException">Old readers stayed open longer than the write timeout.</exception>
    public void PromoteToPrimary()
    {
        ThrowIfDisposed();
        if (!_isReplica) throw new InvalidOperationException($"The environment in '{Directory}' is not a replica.");
        if (Interlocked.Exchange(ref _applying, 1) != 0)
            throw new InvalidOperationException("A replication stream is being applied; stop it (cancel or end the stream) before promoting the replica.");
        try
        {
            using var lease = BeginInternalWrite();
            var guard = _reuseGuard!;
            var waited = System.Diagnostics.Stopwatch.StartNew();
            for (guard.Release(_readers.Oldest()); guard.NewestTracked != 0; guard.Release(_readers.Oldest()))
            {
                if (waited.Elapsed > _options.WriteTimeout)
                    throw new TimeoutException($"Readers older than transaction {guard.NewestTracked} stayed open for {_options.WriteTimeout.TotalSeconds:0.###} s; the promoted replica would reuse pages they read.");
                Thread.Sleep(1);
            }
            ReloadFreeSpace(_commits.Published);
            // Recovery rebuilds journaled diffs on base pages that the last checkpoint must still hold; the
            // primary's frees were never tracked here, so a checkpoint first makes all of them safe to reuse.
            CheckpointCore();
            _isReplica = false;
        }
        finally
        {
            Volatile.Write(ref _applying, 0);
        }
    }
}
