using System.IO.Pipelines;
using System.Runtime.InteropServices;
using StorageEngine.Common;
using StorageEngine.Replication;
using StorageEngine.Transactions;

namespace StorageEngine;

// Journal shipping: the records of committed transactions, read back from the journal files, streamed to a
// replica or an incremental backup.
public sealed partial class StorageEnvironment
{
    /// <summary>Bytes of records shipped between flushes while catching up (flushed at once when caught up).</summary>
    private const long ShippingFlushBytes = 1 << 20;

    /// <summary>Longest wait for a commit before a shipping session looks whether the environment is closing.</summary>
    private static readonly TimeSpan ShippingPollInterval = TimeSpan.FromMilliseconds(200);

    private TaskCompletionSource? _commitSignal;
    // The running sessions: checkpoints keep the journal files they still need, writers the pages they may still
    // read. Replaced whole under _checkpointLock, read without it.
    private volatile ShippingSession[] _shippingSessions = [];

    /// <summary>
    /// Ships every transaction committed after <paramref name="afterTransactionId"/> to
    /// <paramref name="destination"/>, in the versioned journal shipping format (documented in
    /// <c>Replication/ShippingStreamHeader.cs</c>): the journal records' full page images and states, read back
    /// from the journal files, each checksummed. With <paramref name="follow"/> it then ships each new
    /// transaction as it commits, until the token is cancelled, the reader completes or the environment is
    /// disposed; without it, it ends after the last transaction committed when it started (an incremental
    /// backup). Flushes apply backpressure: a slow replica slows the shipping, never the commits. While it runs,
    /// checkpoints keep the journal files it has yet to read.
    /// </summary>
    /// <param name="afterTransactionId">The replica's <see cref="LastCommittedTransactionId"/>.</param>
    /// <param name="destination">Receives the stream; flushed, not completed.</param>
    /// <param name="follow">Keep shipping new commits (replication) rather than end when caught up (incremental backup).</param>
    /// <param name="cancellationToken">Ends the shipping with <see cref="OperationCanceledException"/>; records are whole up to there.</param>
    /// <returns>The last transaction shipped.</returns>
    /// <exception cref="ReplicationException">
    /// The journal no longer holds the transactions after <paramref name="afterTransactionId"/> (checkpoints recycled
    /// them, or the environment was reopened since), or the id is ahead of this environment:
    /// <see cref="ReplicationException.RequiresFullBackup"/> is true; take a full backup.
    /// </exception>
    /// <exception cref="InvalidOperationException">The environment has no journal (InMemory or ReadOnly).</exception>
    public async Task<long> ShipJournalAsync(long afterTransactionId, PipeWriter destination, bool follow = true, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentOutOfRangeException.ThrowIfNegative(afterTransactionId);
        if (_journal is null)
            throw new InvalidOperationException($"The environment in '{Directory}' writes no journal ({(IsReadOnly ? "it is open read-only" : "it lives in memory")}), so it has none to ship.");
        // Shipping reads the records of the session the header names: the new one, once recovery has named it.
        if (_recovering is { Completion.IsCompleted: false } recovering)
        {
            try
            {
                recovering.RunHereIfNotStarted();
                await recovering.Completion.WaitAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (Exception) when (!cancellationToken.IsCancellationRequested)
            {
                // WaitForRecovery reports it.
            }
        }
        WaitForRecovery();
        EnterTransaction();
        ShippingSession? session = null;
        using var tail = new JournalTail(_fileSystem, Directory, Header.EnvironmentId, Header.SessionId, PageSize);
        try
        {
            long expected = afterTransactionId + 1;
            session = StartShipping(expected, tail, out uint? previous);
            long last = follow ? long.MaxValue : LastCommittedTransactionId;
            long unflushed = ShippingStreamWriter.WriteHeader(destination, PageSize, Header.EnvironmentId, afterTransactionId);
            while (expected <= last)
            {
                if (unflushed > 0 && (unflushed >= ShippingFlushBytes || LastCommittedTransactionId < expected))
                {
                    if (!await FlushShippingAsync(destination, cancellationToken).ConfigureAwait(false)) return expected - 1;
                    unflushed = 0;
                }
                if (!await WaitForCommitAsync(expected, cancellationToken).ConfigureAwait(false)) break;
                uint? skippedState = null;
                var record = tail.Next(expected, _commits.Published.JournalFileNumber,
                    skipped => { if (skipped.TransactionId == expected - 1) skippedState = StateChecksum(skipped.State); });
                session.FileNumber = tail.FileNumber;
                if (record.HasRunsInPlace) record = WithValuesInPlaceRead(record);
                unflushed += ShippingStreamWriter.WriteRecord(destination, record, skippedState ?? previous);
                session.ShippedTransactionId = record.TransactionId;
                previous = StateChecksum(record.State);
                expected++;
            }
            if (unflushed > 0) await FlushShippingAsync(destination, cancellationToken).ConfigureAwait(false);
            return expected - 1;
        }
        finally
        {
            StopShipping(session);
            ExitTransaction();
        }
    }

    /// <summary>
    /// A record whose large values went straight into the data file (see <see cref="Journal.JournalPageRun.InPlace"/>),
    /// with their images read back from there: a replica has only the stream. While a session runs, the pages
    /// its unshipped transactions freed are not reused (<see cref="FreedPagesReusableUpTo"/>), so a following
    /// replica always finds them; a session that starts from an old transaction may find them overwritten.
    /// </summary>
    /// <exception cref="ReplicationException">The values were freed and their pages written again since.</exception>
    private Journal.JournalRecord WithValuesInPlaceRead(Journal.JournalRecord record) =>
        record.WithRunsInPlaceRead(PageSize, ReadDataPages)
        ?? throw new ReplicationException(
            $"Transaction {record.TransactionId} wrote its large values straight into the data file, and later transactions have freed them and " +
            "written over their pages, so the journal can no longer ship it. Take a full backup and restore it on the replica.", requiresFullBackup: true);

    private void ReadDataPages(long firstPage, Span<byte> into)
    {
        long offset = firstPage * PageSize;
        while (!into.IsEmpty)
        {
            int read = _data.File.Read(offset, into);
            if (read <= 0) throw new CorruptionException(_data.Path, offset, $"the data file ends before page {firstPage}, which a journal record says holds a value.");
            offset += read;
            into = into[read..];
        }
    }

    /// <summary>The last transaction every running shipping session has shipped (<see cref="long.MaxValue"/> when none runs).</summary>
    private long ShippedByEverySession()
    {
        long shipped = long.MaxValue;
        foreach (var session in _shippingSessions) shipped = Math.Min(shipped, session.ShippedTransactionId);
        return shipped;
    }

    /// <summary>False when the reader has completed (nobody reads any more).</summary>
    private static async ValueTask<bool> FlushShippingAsync(PipeWriter destination, CancellationToken cancellationToken)
    {
        var result = await destination.FlushAsync(cancellationToken).ConfigureAwait(false);
        if (result.IsCanceled) throw new OperationCanceledException("The shipping destination cancelled the flush.");
        return !result.IsCompleted;
    }

    /// <summary>
    /// Registers a session and places <paramref name="tail"/> at <paramref name="firstTransaction"/>, under the
    /// checkpoint lock so that no journal file it needs is retired meanwhile. Also returns the checksum of the
    /// state before that transaction when this environment knows it.
    /// </summary>
    private ShippingSession StartShipping(long firstTransaction, JournalTail tail, out uint? previousState)
    {
        lock (_checkpointLock)
        {
            if (_filesClosed) ThrowIfDisposed();
            var published = _commits.Published;
            if (firstTransaction > published.TransactionId + 1)
            {
                throw new ReplicationException(
                    $"The replica is at transaction {firstTransaction - 1}, ahead of this environment's last commit ({published.TransactionId}): it diverged " +
                    "(or this primary lost a Lazy tail in a crash). Take a full backup and restore it on the replica.", requiresFullBackup: true);
            }
            tail.Locate(firstTransaction, published.TransactionId, published.JournalFileNumber);
            previousState = null;
            if (published.TransactionId == firstTransaction - 1) previousState = StateChecksum(published.State);
            else if (Header.CheckpointTransactionId == firstTransaction - 1) previousState = StateChecksum(EnvironmentFiles.ReadState(Header));
            var session = new ShippingSession(tail.FileNumber, firstTransaction - 1);
            _shippingSessions = [.. _shippingSessions, session];
            return session;
        }
    }

    private void StopShipping(ShippingSession? session)
    {
        if (session is null) return;
        lock (_checkpointLock) _shippingSessions = Array.FindAll(_shippingSessions, running => running != session);
    }

    /// <summary>
    /// The journal file below which a checkpoint may retire files: <paramref name="fileNumber"/>, held back to
    /// the oldest file a shipping session still has to read. Called under the checkpoint lock.
    /// </summary>
    private long RetainJournalFrom(long fileNumber)
    {
        foreach (var session in _shippingSessions) fileNumber = Math.Min(fileNumber, session.FileNumber);
        return fileNumber;
    }

    /// <summary>Waits until <paramref name="transactionId"/> is published; false when the environment is being disposed.</summary>
    private async ValueTask<bool> WaitForCommitAsync(long transactionId, CancellationToken cancellationToken)
    {
        while (true)
        {
            var signal = CommitSignal();
            if (_commits.Published.TransactionId >= transactionId) return true;
            if (IsDisposed) return false;
            try
            {
                await signal.Task.WaitAsync(ShippingPollInterval, cancellationToken).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                // Look again; also notices disposal.
            }
        }
    }

    private TaskCompletionSource CommitSignal()
    {
        var signal = Volatile.Read(ref _commitSignal);
        if (signal is not null) return signal;
        var fresh = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        return Interlocked.CompareExchange(ref _commitSignal, fresh, null) ?? fresh;
    }

    /// <summary>Wakes shipping sessions waiting for a commit (see <see cref="ICommitHost.Published"/>).</summary>
    private void OnCommitted(Snapshot published) => Interlocked.Exchange(ref _commitSignal, null)?.TrySetResult();

    private static uint StateChecksum(ReadOnlySpan<byte> state) => Crc32C.Compute(state);

    private static uint StateChecksum(EnvironmentState state) => Crc32C.Compute(MemoryMarshal.AsBytes(new ReadOnlySpan<EnvironmentState>(in state)));
}
