using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using StorageEngine.BTrees;
using StorageEngine.Common;
using StorageEngine.Journal;
using StorageEngine.Paging;
using StorageEngine.Platform;
using StorageEngine.Transactions;

namespace StorageEngine;

// Closing: the final checkpoint, a simulated crash for tests, and releasing memory once the last reader ends.
public sealed partial class StorageEnvironment
{
    /// <summary>Drops everything without a checkpoint or a flush, as if the process died (for tests).</summary>
    internal void SimulateCrash()
    {
        Interlocked.Exchange(ref _disposeRequested, 1);
        Close(clean: false);
    }

    private void Close(bool clean)
    {
        if (Interlocked.Exchange(ref _closed, 1) != 0) return;
        _checkpointer?.Dispose();
        // A session never started (nothing needed it: no commit, checkpoint or shipping) wrote nothing: the files
        // are as the open found them, and a final checkpoint would only start the session to end it.
        bool untouched = _recovering is { } deferred && deferred.TryAbandon();
        WaitForRecoveryEnd();
        Monitor.Enter(_checkpointLock);
        try
        {
            if (clean && !untouched && _journal is not null && !_writeFailure.HasFailed)
            {
                CheckpointCore(closing: true);
                // Trimming remaps (Windows cannot cut a mapped file): only when no reader can be reading. Readers
                // registered now stay until disposed, and the file keeps its unused tail, as after a crash.
                if (_readers.Count == 0) _data.TrimTo(_commits.Published.State.PageCount);
                RetireJournalOnClose();
            }
        }
        catch (Exception e)
        {
            EngineLog.FinalCheckpointFailed(_logger, e);
        }
        finally
        {
            _filesClosed = true;
            Monitor.Exit(_checkpointLock);
            _journal?.Dispose();
            _data.CloseFile();
            _scratch.Free();
            _lock.Dispose();
            _heldLock.Dispose();
            int readers = _readers.Count;
            if (readers > 0)
            {
                // The pool's buffers stay allocated for the readers, but none is in use: its memory is given back.
                _pool.ParkAll();
                EngineLog.EnvironmentClosedWithReadersLeft(_logger, Directory, readers);
            }
            else EngineLog.EnvironmentClosed(_logger, Directory);
            Volatile.Write(ref _closeFinished, 1);
            Interlocked.MemoryBarrier();
            ReleaseMemoryIfUnread();
        }
    }

    /// <summary>
    /// Releases the memory of a closed environment if nothing reads it any more: called by a read operation that
    /// found its transaction ended when it left, for which a release may have waited.
    /// </summary>
    internal void ReleaseMemoryIfClosedAndUnread()
    {
        if (Volatile.Read(ref _closeFinished) != 0) ReleaseMemoryIfUnread();
    }

    // Set once Close no longer uses the mapping or the buffers: from then on the last reader to end releases them.
    private int _closeFinished;
    private int _memoryReleased;

    /// <summary>
    /// Unmaps the data file and frees the page buffers of a closed environment once no reader is registered.
    /// Dispose set the disposed flag before the close, and a reader registers (a full fence) before checking that
    /// flag, so once the count is seen at zero here no reader can start reading: each one registering from then on
    /// sees the flag and ends before touching a page.
    /// </summary>
    private void ReleaseMemoryIfUnread()
    {
        if (_readers.Count != 0 || Volatile.Read(ref _memoryReleased) != 0) return;
        // An operation of a read transaction disposed under it on another thread may still be reading: it retries
        // the release when it leaves (see ReadActivities).
        if (ReadActivities.AnyInside()) return;
        if (Interlocked.Exchange(ref _memoryReleased, 1) != 0) return;
        _data.Dispose();
        // The pool first: a disposed pool frees what is returned to it rather than parking it.
        _pool.Dispose();
        _commits.ReleaseAll();
    }
}
