using StorageEngine.Transactions;

namespace StorageEngine;

// The write transaction: begun under the commit pipeline's write lock, committed through the pipeline.
public sealed partial class StorageEnvironment : ICommitHost
{
    // The last write transaction's page writer, its pages discarded, for the next one (see ReturnPageWriter).
    private PageWriter? _spareWriter;
    // Whether the header records that this session has written journal records (a Safe session's first write sets it).
    private bool _journalMarked;

    /// <summary>
    /// Starts the write transaction, waiting up to <paramref name="timeout"/> (default
    /// <see cref="StorageEnvironmentOptions.WriteTimeout"/>) while another one runs.
    /// </summary>
    /// <exception cref="TimeoutException">Another write transaction stayed open longer than the timeout.</exception>
    /// <exception cref="InvalidOperationException">
    /// This thread already holds the write transaction: it began it with BeginWrite, and no other thread has used
    /// it since. Thrown once the transaction has stayed so for a moment (a transaction handed to another thread to
    /// commit is waited for), not after the whole timeout.
    /// </exception>
    public WriteTransaction BeginWrite(TimeSpan? timeout = null)
    {
        ArriveAsWriter();
        bool locked = false;
        try
        {
            var wait = timeout ?? _options.WriteTimeout;
            locked = _commits.TryEnterWriter() || WaitForWriteLock(wait);
            if (!locked) throw WriteLockTimeout(wait);
            var writer = CreateWriteTransaction();
            ClaimForFlow(writer);
            return writer;
        }
        catch
        {
            LeaveAsWriter(locked);
            throw;
        }
    }

    /// <summary>
    /// Starts the write transaction once the running one (if any) ends, without blocking a thread, waiting up to
    /// <see cref="StorageEnvironmentOptions.WriteTimeout"/>.
    /// </summary>
    /// <exception cref="TimeoutException">Another write transaction stayed open longer than the timeout.</exception>
    public async ValueTask<WriteTransaction> BeginWriteAsync(CancellationToken cancellationToken = default)
    {
        ArriveAsWriter();
        bool locked = false;
        try
        {
            locked = await _commits.EnterWriterAsync(_options.WriteTimeout, cancellationToken).ConfigureAwait(false);
            if (!locked) throw WriteLockTimeout(_options.WriteTimeout);
            return CreateWriteTransaction();
        }
        catch
        {
            LeaveAsWriter(locked);
            throw;
        }
    }

    /// <summary>What both ways of beginning a writer check and count before they wait for the write lock.</summary>
    private void ArriveAsWriter()
    {
        ThrowIfReadOnly("start a write transaction");
        ThrowIfReplicaWrite();
        EnterTransaction();
        _commits.WriterArriving();
    }

    private void LeaveAsWriter(bool locked)
    {
        _commits.WriterLeft(locked);
        ExitTransaction();
    }

    private WriteTransaction CreateWriteTransaction()
    {
        _writeFailure.ThrowIfFailed();
        var snapshot = _commits.PrepareWriter(_readers);
        _writeFailure.ThrowIfFailed();
        long oldest = OldestVisibleSnapshot();
        _data.ReleaseRetired(oldest);
        _freeSpace.ReleaseUpTo(FreedPagesReusableUpTo(oldest));
        // No checkpoint may begin meanwhile: one reading an older snapshot could still write it (see ReleaseYoung).
        // Without a journal none ever begins (_checkpointStarted stays 0), so every young page no reader sees is
        // released; skipping the call there leaked each page freed over a commit in flight.
        lock (_reuseGate) _freeSpace.ReleaseYoung(ReusableForShipping(oldest), _checkpointStarted);
        var pages = Interlocked.Exchange(ref _spareWriter, null);
        if (pages is null) pages = NewPageWriter(snapshot, PageSourceFor(snapshot), snapshot.TransactionId + 1);
        else pages.Begin(snapshot, _commits.Unwritten, snapshot.TransactionId + 1);
        return new WriteTransaction(this, snapshot, pages);
    }

    /// <summary>The first half of a commit, under the write lock (see <see cref="CommitPipeline.Prepare"/>).</summary>
    internal PendingCommit PrepareCommit(PageWriter pages, EnvironmentState state) => _commits.Prepare(pages, state);

    /// <summary>The second half of a commit, after the write lock is released (see <see cref="CommitPipeline.WaitDurable"/>).</summary>
    internal void WaitDurable(PendingCommit commit, bool spin = true) => _commits.WaitDurable(commit, spin);

    /// <summary>The second half of an asynchronous commit (see <see cref="AsyncCommits.CompleteAsync"/>).</summary>
    internal Task CompleteAsync(PendingCommit commit) => _asyncCommits.CompleteAsync(commit);

    /// <summary>Lets the next writer in; a committed transaction still counts as open until it is durable.</summary>
    internal void ReleaseWriteLock()
    {
        Volatile.Write(ref _syncWriter, null);
        _commits.WriterLeft(locked: true);
    }

    /// <summary>
    /// Keeps the page writer of a write transaction that has ended, its pages discarded, for the next one: its
    /// tables, page source and tree objects are reused rather than made anew (unless a large transaction grew them
    /// past what is worth keeping).
    /// </summary>
    internal void ReturnPageWriter(PageWriter pages)
    {
        if (pages.IsReusable) Volatile.Write(ref _spareWriter, pages);
    }

    void ICommitHost.WaitForRecovery() => WaitForRecovery();

    void ICommitHost.JournalWritten(long journalFile)
    {
        if (!_journalMarked) MarkJournalInUse(journalFile);
    }

    void ICommitHost.Published(Snapshot snapshot) => OnCommitted(snapshot);

    /// <summary>
    /// After a Safe session's first journal write, before its commits are acknowledged: the header records that the
    /// journal holds the session's records from <paramref name="journalFile"/> on, so that an open can tell a journal
    /// overwritten with zeros from one a crash left before its first record (see
    /// <see cref="Paging.DataFileHeaderFlags.JournalInUse"/>). One header write and sync per session. A Lazy
    /// session's records may not survive a power loss that the header survives, so it records nothing.
    /// </summary>
    private void MarkJournalInUse(long journalFile)
    {
        if (_options.Durability != DurabilityMode.Safe)
        {
            _journalMarked = true;
            return;
        }
        lock (_checkpointLock)
        {
            if (_filesClosed) return;
            if ((Header.Flags & Paging.DataFileHeaderFlags.JournalInUse) == 0)
                Header = EnvironmentFiles.MarkJournalInUse(_data.File, Header, journalFile);
            _journalMarked = true;
        }
    }
}
