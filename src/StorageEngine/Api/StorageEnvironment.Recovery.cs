using Microsoft.Extensions.Logging;
using StorageEngine.Journal;
using StorageEngine.Transactions;

namespace StorageEngine;

// Recovery work that runs after the files are open: finishing a replay in the background, and rebuilding the
// free-space map after an unclean Lazy session.
public sealed partial class StorageEnvironment
{
    /// <summary>
    /// The second half of an open, run in the background so that an environment answers reads at once: syncs
    /// the <paramref name="replayed"/> pages replayed from a crashed session's journal (if any), writes the header
    /// that starts the new session, then retires the previous session's journal. Until it ends, that journal is
    /// what makes any replayed transactions durable.
    /// </summary>
    private void FinishRecovery(EnvironmentState state, long nextJournal, long sessionId, bool lazy, long replayed)
    {
        lock (_checkpointLock)
        {
            if (_filesClosed) return;
            long started = System.Diagnostics.Stopwatch.GetTimestamp();
            // The new session's first file (a spare renamed, or a new one preallocated) exists before the header
            // names the session: an unclean header names a journal file that exists (see EnvironmentFiles.Opened).
            // On a full disk there may be no room for a new one until the crashed session's files are retired,
            // which only the new header allows: then it is opened after them, as the first commit would.
            bool firstFileOpen = false;
            try
            {
                _journal!.OpenFirstFile();
                firstFileOpen = true;
            }
            catch (IOException e)
            {
                Common.EngineLog.FirstJournalFileDeferred(_logger, e);
            }
            try
            {
                Header = EnvironmentFiles.FinishRecovery(_data.File, Header, state, nextJournal, lazy, sessionId);
            }
            catch (Exception e)
            {
                _writeFailure.Record(e, "Syncing the data file (and any pages recovered from the journal) and starting the new session");
                Common.EngineLog.RecoverySyncFailed(_logger, e);
                throw;
            }
            int retired = 0;
            try
            {
                retired = _journal!.RetireBelow(nextJournal);
                if (!firstFileOpen) _journal.OpenFirstFile();
            }
            catch (IOException e)
            {
                // The header already names the new session: what is left is tidying, which later checkpoints
                // and the first commit retry.
                Common.EngineLog.RecoveryTidyingFailed(_logger, e);
            }
            if (replayed > 0) Common.EngineLog.RecoveredPagesSynced(_logger, System.Diagnostics.Stopwatch.GetElapsedTime(started).TotalMilliseconds, retired);
            else if (retired > 0) Common.EngineLog.JournalFilesRetiredAfterOpening(_logger, retired);
        }
    }

    /// <summary>Waits, before the files close, until a recovery finishing in the background has stopped using them.</summary>
    private void WaitForRecoveryEnd()
    {
        try
        {
            _recovering?.RunOrWait();
        }
        catch (Exception)
        {
            // Logged where it failed; the journal still holds the replayed records for the next open.
        }
    }

    /// <summary>Waits until a recovery finishing in the background is done; throws when it failed.</summary>
    internal void WaitForRecovery()
    {
        var recovering = _recovering;
        if (recovering is null || recovering.Completion.IsCompletedSuccessfully) return;
        try
        {
            recovering.RunOrWait();
        }
        catch (Exception e)
        {
            throw new StorageException($"Opening '{Directory}' could not sync the data file and start the new session (the first journal file, the header); reopen the environment to recover again.", e);
        }
    }

    /// <summary>
    /// After an unclean Lazy session the bitmaps may describe transactions whose records were lost: set every
    /// page's bit from what the trees actually reach, commit that, and checkpoint it.
    /// </summary>
    private void RebuildFreeSpace()
    {
        long started = System.Diagnostics.Stopwatch.GetTimestamp();
        var snapshot = _commits.Published;
        var pages = NewPageWriter(snapshot, PageSourceFor(snapshot), snapshot.TransactionId);
        try
        {
            var used = new EnvironmentChecker(snapshot, pages, _freeSpace, PageSize).CollectUsedPages();
            long changed = _freeSpace.Rebuild(pages, used, snapshot.State.PageCount);
            // Written straight to the data file and synced, outside the journal: nothing else runs yet, and
            // until the new session's header is written a crash simply leads to another rebuild.
            var sealedPages = new List<CommittedRun>();
            var runs = new List<JournalPageRun>();
            pages.Seal(sealedPages, runs, encodeDiffs: false, valuesInPlaceFrom: long.MaxValue, valuesInPlace: [], out _);
            try
            {
                CommitPipeline.WriteRuns(_data, runs, new List<ReadOnlyMemory<byte>>());
                _data.Flush();
                PageWriter.MarkVerified(sealedPages, _verified, _verifiedValues);
            }
            finally
            {
                foreach (var run in sealedPages) run.Release(_pool);
            }
            _freeSpace.Commit(snapshot.TransactionId);
            Common.EngineLog.FreeSpaceRebuilt(_logger, changed, System.Diagnostics.Stopwatch.GetElapsedTime(started).TotalMilliseconds);
        }
        catch
        {
            _freeSpace.Abort();
            throw;
        }
        finally
        {
            pages.Discard();
        }
    }
}
