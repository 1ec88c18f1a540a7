using Microsoft.Extensions.Logging;
using StorageEngine.Journal;
using StorageEngine.Transactions;

namespace StorageEngine;

// The commit pipeline: a transaction is committed in memory under the write lock, then made durable by a
// group's single journal write, written into the data file and published in order.
public sealed partial class StorageEnvironment
{
    /// <summary>
    /// Commits the transaction in memory, under the write lock: its pages are sealed and handed over, the
    /// free-space map moves on, and the next writer may start from it at once. The caller then releases the
    /// write lock and calls <see cref="WaitDurable"/>. When this throws nothing has changed; the caller aborts.
    /// </summary>
    internal PendingCommit PrepareCommit(PageWriter pages, EnvironmentState state)
    {
        ThrowIfWriteFailed();
        var (sealedPages, runs) = _pending.RentLists(pages.DirtyCount);
        long bytes = 0;
        // Sized before sealing so that a refusal (too big, disk full while growing the file) changes nothing.
        try
        {
            _data.EnsureCapacity(state.PageCount, state.TransactionId);
        }
        catch (IOException e)
        {
            throw new StorageException($"The data file could not grow to {state.PageCount} pages ({e.Message}); the transaction was not committed and earlier commits are intact.", e);
        }
        pages.Seal(sealedPages, runs, encodeDiffs: _journal is not null, out byte[]? diffs);
        foreach (var run in runs) bytes += run.IsDiff ? run.Diff.Length : (long)run.PageCount * PageSize;
        var encoded = new byte[EnvironmentState.Size];
        System.Runtime.InteropServices.MemoryMarshal.Write(encoded, in state);
        var commit = new PendingCommit(state, encoded, sealedPages, runs, diffs, bytes, pages.FreedEarlier);
        if (bytes > MaxTransactionBytes)
        {
            _pending.Release(commit, _pool);
            throw new InvalidOperationException($"The transaction changes {bytes} bytes of pages, more than the {MaxTransactionBytes} one commit can journal; split it.");
        }
        int freed = _freeSpace.Commit(state.TransactionId);
        _checkpointer?.OnPagesFreed((long)freed * PageSize);
        _pending.Add(commit);
        lock (_groupLock)
        {
            _queue.Add(commit);
            _queued = _queue.Count;
        }
        return commit;
    }

    /// <summary>
    /// Returns once the commit is durable and published. The first committer to find no group write running
    /// leads: it takes every queued commit, writes their records with one journal write, puts their pages
    /// into the data file and publishes the last; the others wait for it, or lead the next group.
    /// </summary>
    /// <param name="commit">The commit to wait for.</param>
    /// <param name="spin">
    /// Whether to spin before blocking, and as a leader for writers about to join the group. The thread that
    /// waits for asynchronous commits does not: it would compete for a core with the very writer it waits for.
    /// </param>
    /// <exception cref="StorageException">The group write failed: the commit may or may not survive a reopen.</exception>
    internal void WaitDurable(PendingCommit commit, bool spin = true)
    {
        while (true)
        {
            if (spin) AwaitGroupWrite(commit);
            lock (_groupLock)
            {
                while (!commit.IsCompleted && _groupWriting) Monitor.Wait(_groupLock);
                if (commit.IsCompleted) break;
                _groupWriting = true;
            }
            if (spin) WaitForWritersInFlight();
            lock (_groupLock)
            {
                _group.Clear();
                long bytes = 0;
                int taken = 0;
                while (taken < _queue.Count && (taken == 0 || bytes + _queue[taken].RecordBytes <= MaxGroupBytes))
                {
                    bytes += _queue[taken].RecordBytes;
                    _group.Add(_queue[taken++]);
                }
                _queue.RemoveRange(0, taken);
                _queued = _queue.Count;
            }
            Exception? failure = null;
            try
            {
                WriteGroup(_group);
                Common.EngineInstruments.GroupWritten(_group.Count);
            }
            catch (Exception e)
            {
                failure = e;
            }
            lock (_groupLock)
            {
                foreach (var member in _group) member.Complete(failure);
                // Those queued now came while the group was written: with the group's own, all are likely back soon.
                _expectedCommitters = _group.Count + _queue.Count;
                _group.Clear();
                _groupWriting = false;
                Monitor.PulseAll(_groupLock);
            }
        }
        if (commit.Failure is { } error) throw CommitFailure(error);
        // Free the group's buffers now if no writer is running, rather than holding them until the next one.
        if (_writeLock.Wait(0))
        {
            try
            {
                _pending.ReleaseCompleted(_pool);
            }
            finally
            {
                _writeLock.Release();
            }
        }
    }

    /// <summary>What a committer whose group write failed with <paramref name="error"/> is told.</summary>
    private static StorageException CommitFailure(Exception error) =>
        error as StorageException
        ?? new StorageException("The commit failed while writing the journal; this environment accepts no more writes. Reopen it: recovery keeps every acknowledged commit.", error);

    /// <summary>
    /// Lets write transactions already under way (or waiting for the lock), and as many committers as joined
    /// the last group or queued while it was written, commit into the leader's group rather than wait a whole
    /// journal write for the next one: spins while it expects them, at most for about the time one journal
    /// write takes. A lone writer (on one thread or hopping between pool threads), with no one else in flight
    /// and groups of one, never waits.
    /// </summary>
    private void WaitForWritersInFlight()
    {
        if (_journal is null) return;
        int expected = Volatile.Read(ref _expectedCommitters);
        if (!ExpectingCommitters(expected)) return;
        long deadline = System.Diagnostics.Stopwatch.GetTimestamp() + Math.Min(Volatile.Read(ref _journalWriteTicks), System.Diagnostics.Stopwatch.Frequency / 1000);
        var spinner = new SpinWait();
        while (ExpectingCommitters(expected) && System.Diagnostics.Stopwatch.GetTimestamp() < deadline) spinner.SpinOnce(sleep1Threshold: -1);
    }

    /// <summary>
    /// A committer that finds a group write under way spins (yielding, never sleeping) until it ends, for at
    /// most about two journal writes, before it blocks: waking a blocked thread costs tens of microseconds on a
    /// virtual machine, and that wake-up stood between every two group writes (two committing threads ran 1.03x
    /// one thread's rate before this spin, 1.16x to 1.81x after it: <c>25172bd</c>, 2026-11-21, 2-vCPU VM).
    /// A lone committer never finds a write under way, so it never spins.
    /// </summary>
    private void AwaitGroupWrite(PendingCommit commit)
    {
        if (commit.IsCompleted || !Volatile.Read(ref _groupWriting)) return;
        long deadline = System.Diagnostics.Stopwatch.GetTimestamp()
            + 2 * Math.Min(Volatile.Read(ref _journalWriteTicks), System.Diagnostics.Stopwatch.Frequency / 1000);
        var spinner = new SpinWait();
        while (!commit.IsCompleted && Volatile.Read(ref _groupWriting) && System.Diagnostics.Stopwatch.GetTimestamp() < deadline)
            spinner.SpinOnce(sleep1Threshold: -1);
    }

    private bool ExpectingCommitters(int expected) =>
        Volatile.Read(ref _writersInFlight) > 0 || Volatile.Read(ref _queued) < expected;

    /// <summary>
    /// The leader's work: the group's records in one journal write, then their pages into the data file,
    /// then each new snapshot published in order. A failure poisons the environment: later commits were
    /// built on the failed ones.
    /// </summary>
    private void WriteGroup(List<PendingCommit> group)
    {
        ThrowIfWriteFailed();
        long journalFile = Volatile.Read(ref _current).JournalFileNumber;
        if (_journal is not null)
        {
            _groupEntries.Clear();
            foreach (var member in group) _groupEntries.Add(member.ToJournalEntry());
            try
            {
                journalFile = AppendToJournal(_groupEntries);
            }
            finally
            {
                _groupEntries.Clear();
            }
        }
        foreach (var member in group) PlacePages(member);
        foreach (var member in group)
        {
            PageWriter.MarkVerified(member.Pages, _verified, _verifiedValues);
            member.JournalFileNumber = journalFile;
            var published = new Snapshot(member.State, _data.View, journalFile);
            Volatile.Write(ref _current, published);
            OnCommitted(published);
        }
        TellCheckpointerOfJournal();
        if (_unwritten is not null) _checkpointer?.OnUnwrittenBytes(_unwritten.Bytes);
    }

    /// <summary>After a journal write: the checkpointer counts its bytes, and prepares the next file if none waits.</summary>
    private void TellCheckpointerOfJournal()
    {
        if (_journal is null || _checkpointer is null) return;
        _checkpointer.OnCommit(_journal.BytesWritten);
        if (_journal.SpareWanted) _checkpointer.OnJournalSpareWanted();
    }

    /// <summary>
    /// Puts a durable commit's pages where readers will find them: kept in memory for the next checkpoint to
    /// write (so a commit costs one journal write), or, when that memory is at its limit because checkpoints
    /// fall behind, written into the data file at once.
    /// </summary>
    private void PlacePages(PendingCommit member)
    {
        long published = Volatile.Read(ref _current).TransactionId;
        if (_unwritten is { } unwritten && unwritten.Bytes < UnwrittenLimit)
        {
            unwritten.Add(member.Pages, member.TransactionId, published);
            member.HandOverPages();
        }
        else
        {
            // Under the lock that a checkpoint's writes take too: a checkpoint that collected an older version of
            // one of these pages (a bitmap page, changed in place) either wrote it before, or sees it superseded.
            lock (_dataPageWrites)
            {
                WriteJournaledRuns(member.Runs);
                _unwritten?.Drop(member.Pages);
            }
        }
        _unwritten?.MarkFreed(member.Freed, member.TransactionId);
    }

    /// <summary>Memory for pages awaiting a checkpoint beyond which commits write theirs into the data file themselves.</summary>
    private long UnwrittenLimit => Math.Max(2 * _options.CheckpointThreshold, 64L << 20);

    /// <summary>
    /// Writes the pages held for the checkpoint of <paramref name="snapshot"/> into the data file (the caller
    /// syncs), except those freed by a commit that no reader and no recovery from this checkpoint can need.
    /// Returns what it collected, for <see cref="UnwrittenPages.Remove"/> and then <see cref="UnwrittenPages.EndCollect"/>.
    /// </summary>
    private ArraySegment<KeyValuePair<long, UnwrittenPages.Entry>>? WriteUnwrittenPages(Snapshot snapshot)
    {
        if (_unwritten is null || _unwritten.IsEmpty) return null;
        var entries = _unwritten.Collect();
        try
        {
            WriteCollected(entries, leaveOutFreedUpTo: Math.Min(snapshot.TransactionId, _readers.Oldest()));
            return entries;
        }
        catch
        {
            _unwritten.EndCollect(entries);
            throw;
        }
    }

    /// <summary>
    /// Writes the pages held for the next checkpoint into the data file without syncing or forgetting them, so
    /// that the file's mapping shows every committed page (a backup reads it directly).
    /// </summary>
    private void WriteOutUnwrittenPages()
    {
        if (_unwritten is null || _unwritten.IsEmpty) return;
        var entries = _unwritten.Collect();
        try
        {
            WriteCollected(entries, leaveOutFreedUpTo: long.MinValue);
        }
        finally
        {
            _unwritten.EndCollect(entries);
        }
    }

    /// <summary>
    /// Writes collected pages (in page order) with one gathered write per stretch of consecutive pages, leaving
    /// out those freed at or before transaction <paramref name="leaveOutFreedUpTo"/>.
    /// </summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)]
    private void WriteCollected(ReadOnlySpan<KeyValuePair<long, UnwrittenPages.Entry>> entries, long leaveOutFreedUpTo)
    {
        // The data file must never hold a page version newer than the durable journal (see PageWriter.Seal).
        _journal?.SyncBuffered();
        var gather = new List<ReadOnlyMemory<byte>>();
        int i = 0;
        while (i < entries.Length)
        {
            // One stretch at a time under the lock of commits that write their pages themselves (see PlacePages),
            // so that a version such a commit superseded is never written over the newer one.
            lock (_dataPageWrites)
            {
                if (!Writable(entries[i].Value, leaveOutFreedUpTo))
                {
                    i++;
                    continue;
                }
                long first = entries[i].Key;
                long next = first;
                gather.Clear();
                while (i < entries.Length && entries[i].Key == next && gather.Count < MaxGatheredPages && Writable(entries[i].Value, leaveOutFreedUpTo))
                {
                    var run = entries[i].Value.Run;
                    gather.Add(run.Buffer.Memory);
                    next += run.PageCount;
                    i++;
                }
                _data.Write(first, gather);
            }
        }
    }

    private static bool Writable(UnwrittenPages.Entry entry, long leaveOutFreedUpTo) =>
        Volatile.Read(ref entry.FreedBy) > leaveOutFreedUpTo && !entry.Superseded;

    /// <summary>Taken by each data-file write of held pages and by commits that write their own pages.</summary>
    private readonly object _dataPageWrites = new();

    /// <summary>Buffers per gathered write, well under the operating system's limit (1,024 on Linux).</summary>
    private const int MaxGatheredPages = 256;

    /// <summary>
    /// Writes records with one journal write and returns their file, keeping the running average of a write's
    /// time. A failure refuses further writes: what was built on the records can no longer be trusted.
    /// </summary>
    private long AppendToJournal(List<JournalEntry> entries)
    {
        try
        {
            // The new session's records count only once the header names it.
            WaitForRecovery();
            long started = System.Diagnostics.Stopwatch.GetTimestamp();
            long file = _journal!.Append(entries).FileNumber;
            long took = System.Diagnostics.Stopwatch.GetTimestamp() - started;
            long average = Volatile.Read(ref _journalWriteTicks);
            Volatile.Write(ref _journalWriteTicks, average == 0 ? took : average + (took - average) / 8);
            if (!_journalMarked) MarkJournalInUse(file);
            return file;
        }
        catch (Exception e)
        {
            RecordWriteFailure(e, "A commit's journal write", replace: true);
            throw;
        }
    }

    // Whether the header records that this session has written journal records (a Safe session's first write sets it).
    private bool _journalMarked;

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

    /// <summary>
    /// Writes pages whose journal records were appended into the data file, once they are durable (a Lazy
    /// journal is synced first, see PageWriter.Seal); a failure refuses further writes.
    /// </summary>
    private void WriteJournaledRuns(List<JournalPageRun> runs)
    {
        try
        {
            _journal?.SyncBuffered();
            WriteRuns(runs);
        }
        catch (Exception e)
        {
            // The records are durable, so recovery will apply them; this process can no longer write safely.
            RecordWriteFailure(e, "Writing a journaled commit's pages into the data file", replace: true);
            throw new StorageException("The commit is in the journal but writing its pages to the data file failed; reopen the environment to recover.", e);
        }
    }

    /// <summary>Called after each commit is durable and published (for journal shipping); never throws.</summary>
    partial void OnCommitted(Snapshot published);

    /// <summary>Writes sealed runs to the data file, one gathered write per stretch of consecutive pages.</summary>
    private void WriteRuns(List<JournalPageRun> runs)
    {
        int i = 0;
        while (i < runs.Count)
        {
            long first = runs[i].FirstPage;
            long next = first;
            _gather.Clear();
            while (i < runs.Count && runs[i].FirstPage == next)
            {
                _gather.Add(runs[i].Data);
                next += runs[i].PageCount;
                i++;
            }
            _data.Write(first, _gather);
        }
    }

    /// <summary>Lets the next writer in; a committed transaction still counts as open until it is durable.</summary>
    internal void ReleaseWriteLock()
    {
        Volatile.Write(ref _syncWriter, null);
        Interlocked.Decrement(ref _writersInFlight);
        _writeLock.Release();
    }
}
