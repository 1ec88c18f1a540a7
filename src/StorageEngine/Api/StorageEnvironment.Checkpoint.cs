using StorageEngine.Paging;
using StorageEngine.Common;
using StorageEngine.Transactions;

namespace StorageEngine;

// Checkpoints: the committed pages held in memory go into the data file, which is synced, the header records
// the checkpoint, and the journal files it covers are retired. The background Checkpointer runs them through
// ICheckpointTarget; a writer runs one itself when the file would otherwise grow past freed pages.
public sealed partial class StorageEnvironment : ICheckpointTarget
{
    /// <summary>
    /// Writes every committed page to the data file durably, records that in the checkpoint header, and
    /// recycles the journal files that are no longer needed. Runs in the background on its own; call it to
    /// force one.
    /// </summary>
    public void Checkpoint()
    {
        ThrowIfDisposed();
        ThrowIfReadOnly("checkpoint");
        CheckpointCore();
    }

    void ICheckpointTarget.Checkpoint() => CheckpointCore();

    long ICheckpointTarget.UnwrittenBytes => _commits.UnwrittenBytes;

    void ICheckpointTarget.PrepareJournal() => PrepareJournal();

    bool ICheckpointTarget.ReleaseIdleMemory() => !IsDisposed && _commits.ReleaseIdleMemory(_readers, IdleReaderWait);

    /// <summary>How long the checkpointer waits, after commits paused, for the readers of retired pages to end.</summary>
    private static readonly TimeSpan IdleReaderWait = TimeSpan.FromMilliseconds(50);

    /// <summary>Bytes of page buffers the writer's pool keeps ready, for tests.</summary>
    internal long PooledReadyBytes => _pool.ReadyBytes;

    /// <summary>Bytes of the buffers of pages a checkpoint wrote that are not yet freed (readers may hold them), for tests.</summary>
    internal long RetiredPageBytes => _commits.RetiredBytes;

    private readonly object _checkpointLock = new();
    // Orders a checkpoint's choice of snapshot against the writer's early release of young freed pages.
    private readonly object _reuseGate = new();
    private long _checkpointStarted;
    private bool _filesClosed;
    private long _checkpointedTransactionId;

    /// <param name="closing">
    /// On a clean close the header points past every journal file, so the next open reads no journal at all.
    /// </param>
    internal void CheckpointCore(bool closing = false)
    {
        if (_journal is null) return;
        WaitForRecovery();
        lock (_checkpointLock)
        {
            // A session that a close abandoned before anything started it has nothing to checkpoint (no commit ran, so
            // the check below returns too), and its header must stay the last session's, which names no journal file.
            if (_filesClosed || _recovering is { IsAbandoned: true }) return;
            Snapshot snapshot;
            // Young freed pages written before this snapshot may be live in its state: none is released early from now on.
            lock (_reuseGate)
            {
                snapshot = _commits.Published;
                _checkpointStarted = snapshot.TransactionId;
            }
            if (snapshot.TransactionId == Header.CheckpointTransactionId && !closing) return;
            _writeFailure.ThrowIfFailed();
            long started = System.Diagnostics.Stopwatch.GetTimestamp();
            long journalFile = closing ? _journal.CurrentFileNumber + 1 : snapshot.JournalFileNumber;
            ArraySegment<KeyValuePair<long, UnwrittenPages.Entry>>? written = null;
            bool recorded = false;
            try
            {
                written = _commits.WriteForCheckpoint(snapshot.TransactionId, _readers.Oldest());
                _data.Flush();
                // A clean close records the free-page count for the next open (no writer runs any more).
                Header = EnvironmentFiles.WriteCheckpoint(_data.File, Header, snapshot.State, journalFile, clean: closing,
                    closing ? _freeSpace.CommittedFreePages(snapshot.TransactionId) : -1);
                recorded = true;
            }
            catch (IOException e)
            {
                // After a failed sync Linux marks the dirty pages clean, so a later sync succeeds without them: only
                // the journal still holds them, and no later checkpoint may retire it. Writes stop until a reopen
                // replays the journal.
                _writeFailure.Record(e, "A checkpoint");
                throw;
            }
            finally
            {
                // Once the data file holds them durably they are forgotten, which lets their freed pages be reused.
                if (written is { } collected) _commits.CheckpointWritten(collected, recorded);
            }
            Volatile.Write(ref _checkpointedTransactionId, snapshot.TransactionId);
            int retired = _journal.RetireBelow(RetainJournalFrom(snapshot.JournalFileNumber));
            EngineInstruments.CheckpointCompleted(started, snapshot.TransactionId);
            EngineLog.CheckpointWritten(_logger, snapshot.TransactionId, System.Diagnostics.Stopwatch.GetElapsedTime(started).TotalMilliseconds, retired);
        }
    }

    /// <summary>Background upkeep of the journal: keep a spare file ready.</summary>
    internal void PrepareJournal()
    {
        lock (_checkpointLock)
        {
            if (!_filesClosed) _journal?.EnsureSpareFile();
        }
    }

    /// <summary>
    /// Runs a checkpoint on the writer's thread when the data file would otherwise grow while many freed pages
    /// wait for one (see <see cref="FreeSpaceMap.MakeReusable"/>). A writer that outruns the background
    /// checkpoints, as one keeping commits in flight can, is slowed to their pace instead of growing the file by
    /// their lag. Returns whether pages may have become reusable.
    /// </summary>
    private bool CheckpointForReuse()
    {
        // Only when the checkpoint is what holds them back: not a reader, not commits still on their way to the journal.
        if (Volatile.Read(ref _checkpointedTransactionId) < OldestVisibleSnapshot())
        {
            try
            {
                CheckpointCore();
            }
            catch (Exception e) when (e is IOException or StorageException)
            {
                // The background checkpointer retries it and a failed write fails the commit; the file grows meanwhile.
                EngineLog.ReuseCheckpointFailed(_logger, e);
                return false;
            }
        }
        // Released here, not only when the next transaction begins: a background checkpoint that ended during this
        // transaction covers pages that still wait (with none run here, the file grew past them). Read again: a
        // reader may have begun meanwhile.
        long waiting = _freeSpace.WaitingPages;
        _freeSpace.ReleaseUpTo(FreedPagesReusableUpTo(OldestVisibleSnapshot()));
        return _freeSpace.WaitingPages < waiting;
    }

    /// <summary>
    /// The oldest snapshot a reader may hold now (the published one when no reader is older). The published
    /// snapshot is read before the readers: a reader registering after that read of the readers checks the
    /// current snapshot after registering (see <see cref="BeginRead"/>), so it holds one at least as new. Read the
    /// other way round, a commit published in between (group commits publish from other threads) let a reader
    /// registered meanwhile on an older snapshot go unseen.
    /// </summary>
    private long OldestVisibleSnapshot()
    {
        long published = _commits.Published.TransactionId;
        return Math.Min(_readers.Oldest(), published);
    }

    /// <summary>
    /// The newest transaction whose freed pages may be reused, given <paramref name="oldestVisible"/>. With a
    /// journal, a page freed after the last checkpoint must not be overwritten until one covers it: recovery may
    /// need it as the base of a journaled diff, and in Lazy mode a power loss can lose the records after the
    /// checkpoint while the page cache already wrote later pages.
    /// </summary>
    private long FreedPagesReusableUpTo(long oldestVisible) =>
        _journal is null ? oldestVisible : Math.Min(ReusableForShipping(oldestVisible), Volatile.Read(ref _checkpointedTransactionId));

    /// <summary>
    /// <paramref name="oldestVisible"/>, held back to what every shipping session has shipped: a record it has yet
    /// to ship may name values in the data file (see <see cref="Journal.JournalPageRun.InPlace"/>), whose pages
    /// must not be written again before it reads them.
    /// </summary>
    private long ReusableForShipping(long oldestVisible) => Math.Min(oldestVisible, ShippedByEverySession());
}
