using System.Diagnostics;
using System.Runtime.InteropServices;
using StorageEngine.Common;
using StorageEngine.Journal;

namespace StorageEngine.Transactions;

// Group commit: prepared commits queue here (under _groupLock) until a committing thread, the leader of the
// moment, writes all of them with one journal write; the others wait for it, or lead the next group.
internal sealed partial class CommitPipeline
{
    private readonly object _groupLock = new();
    private readonly List<PendingCommit> _queue = new();
    private readonly List<PendingCommit> _group = new();
    private readonly List<JournalEntry> _groupEntries = new();
    // The group's encoded states, which its journal entries point into (see WriteGroup).
    private byte[] _groupStates = new byte[4 * EnvironmentState.Size];
    private bool _groupWriting;
    // Write transactions begun (or waiting for the lock) and not yet committed or ended, and the committers
    // expected in a group (the last group's size plus those that queued while it was written): a leader gives
    // them a moment to join its group, up to about one journal write's time (a running average, in Stopwatch
    // ticks). Counting those that queued during the write matters: two threads can otherwise settle into
    // alternating groups of one, each leading while the other builds its next transaction, so that every
    // commit waits for two journal writes and two threads commit no faster than one.
    private int _writersInFlight;
    private int _queued;
    private int _expectedCommitters;
    private long _journalWriteTicks;

    /// <summary>
    /// Commits the transaction in memory, under the write lock: its pages are sealed and handed over, the
    /// free-space map moves on, and the next writer may start from it at once. The caller then releases the
    /// write lock and calls <see cref="WaitDurable"/>. When this throws nothing has changed; the caller aborts.
    /// </summary>
    public PendingCommit Prepare(PageWriter pages, EnvironmentState state)
    {
        _failure.ThrowIfFailed();
        EnsureCapacity(state);
        var (sealedPages, runs, valuesInPlace) = Pending.RentLists(pages.DirtyCount);
        // Only where a commit's journal write is durable when it returns can its values be synced into place first.
        long valuesInPlaceFrom = _journal is { IsDurable: true } ? _valuesInPlaceFrom : long.MaxValue;
        pages.Seal(sealedPages, runs, encodeDiffs: _journal is not null, valuesInPlaceFrom, valuesInPlace, out byte[]? diffs);
        long bytes = 0;
        foreach (var run in runs) bytes += run.IsDiff ? run.Diff.Length : (long)run.PageCount * _pageSize;
        var commit = new PendingCommit(state, sealedPages, runs, diffs, bytes, Pending.RentFreed(pages.FreedEarlier), valuesInPlace);
        if (bytes > MaxTransactionBytes)
        {
            Pending.Release(commit, _pool);
            throw new InvalidOperationException($"The transaction changes {bytes} bytes of pages, more than the {MaxTransactionBytes} one commit can journal; split it.");
        }
        int freed = _freeSpace.Commit(state.TransactionId);
        _checkpointer?.OnPagesFreed((long)freed * _pageSize, state.PageCount * _pageSize);
        Pending.Add(commit);
        Enqueue(commit);
        return commit;
    }

    /// <summary>
    /// Applies a transaction another environment committed (a primary's, shipped to this replica) as if this one
    /// had: its record (page images and state, unchanged) goes through the same group write as a local commit,
    /// its pages straight into the data file. The caller holds the write lock, has verified the record and
    /// reloads the free-space map afterwards; no local commit may be pending.
    /// </summary>
    /// <exception cref="StorageException">Writing failed; the environment must be reopened (recovery keeps what was journaled).</exception>
    public void Apply(EnvironmentState state, List<JournalPageRun> runs)
    {
        _failure.ThrowIfFailed();
        lock (_groupLock)
        {
            while (_groupWriting) Monitor.Wait(_groupLock);
            if (_queue.Count > 0 || !Pending.IsEmpty)
                throw new InvalidOperationException("Local commits are pending; a replicated transaction cannot be applied beside them.");
        }
        // Sized first, so that a refusal (disk full) changes nothing.
        EnsureCapacity(state);
        var commit = PendingCommit.Applied(state, runs);
        Enqueue(commit);
        WaitDurable(commit, spin: false);
    }

    /// <summary>
    /// Returns once the commit is durable and published. The first committer to find no group write running
    /// leads: it takes every queued commit, writes their records with one journal write, puts their pages
    /// into the data file and publishes them in order; the others wait for it, or lead the next group.
    /// </summary>
    /// <param name="commit">The commit to wait for.</param>
    /// <param name="spin">
    /// Whether to spin before blocking, and as a leader for writers about to join the group. The thread that
    /// waits for asynchronous commits does not: it would compete for a core with the very writer it waits for.
    /// </param>
    /// <exception cref="StorageException">The group write failed: the commit may or may not survive a reopen.</exception>
    public void WaitDurable(PendingCommit commit, bool spin = true)
    {
        while (!commit.IsCompleted)
        {
            if (spin) AwaitGroupWrite(commit);
            if (!TryLead(commit)) break;
            if (spin) WaitForWritersInFlight();
            TakeGroup();
            Exception? failure = null;
            try
            {
                WriteGroup(_group);
                EngineInstruments.GroupWritten(_group.Count);
            }
            catch (Exception e)
            {
                failure = e;
            }
            EndGroup(failure);
        }
        if (commit.Failure is { } error) throw CommitFailure(error);
        ReleaseCompletedIfIdle();
    }

    /// <summary>What a committer whose group write failed with <paramref name="error"/> is told.</summary>
    public static StorageException CommitFailure(Exception error) =>
        error as StorageException
        ?? new StorageException("The commit failed while writing the journal; this environment accepts no more writes. Reopen it: recovery keeps every acknowledged commit.", error);

    private void EnsureCapacity(EnvironmentState state)
    {
        try
        {
            _data.EnsureCapacity(state.PageCount, state.TransactionId);
        }
        catch (IOException e)
        {
            throw new StorageException($"The data file could not grow to {state.PageCount} pages ({e.Message}); the transaction was not committed and earlier commits are intact.", e);
        }
    }

    private void Enqueue(PendingCommit commit)
    {
        lock (_groupLock)
        {
            _queue.Add(commit);
            _queued = _queue.Count;
        }
    }

    /// <summary>Waits while another leader writes; true when this committer is to lead, false once its commit is complete.</summary>
    private bool TryLead(PendingCommit commit)
    {
        lock (_groupLock)
        {
            while (!commit.IsCompleted && _groupWriting) Monitor.Wait(_groupLock);
            if (commit.IsCompleted) return false;
            _groupWriting = true;
            return true;
        }
    }

    /// <summary>Moves queued commits, in order and up to <see cref="MaxGroupBytes"/> (one at least), into the leader's group.</summary>
    private void TakeGroup()
    {
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
    }

    private void EndGroup(Exception? failure)
    {
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
        long deadline = Stopwatch.GetTimestamp() + Math.Min(Volatile.Read(ref _journalWriteTicks), Stopwatch.Frequency / 1000);
        var spinner = new SpinWait();
        while (ExpectingCommitters(expected) && Stopwatch.GetTimestamp() < deadline) spinner.SpinOnce(sleep1Threshold: -1);
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
        long deadline = Stopwatch.GetTimestamp() + 2 * Math.Min(Volatile.Read(ref _journalWriteTicks), Stopwatch.Frequency / 1000);
        var spinner = new SpinWait();
        while (!commit.IsCompleted && Volatile.Read(ref _groupWriting) && Stopwatch.GetTimestamp() < deadline)
            spinner.SpinOnce(sleep1Threshold: -1);
    }

    private bool ExpectingCommitters(int expected) =>
        Volatile.Read(ref _writersInFlight) > 0 || Volatile.Read(ref _queued) < expected;

    /// <summary>
    /// The leader's work: the group's values that go in place written and synced, then the group's records in
    /// one journal write, then their pages into place, then each new snapshot published in order. A failure
    /// poisons the environment: later commits were built on the failed ones.
    /// </summary>
    private void WriteGroup(List<PendingCommit> group)
    {
        _failure.ThrowIfFailed();
        long journalFile = Published.JournalFileNumber;
        WriteValuesInPlace(group);
        if (_journal is not null)
        {
            _groupEntries.Clear();
            // The states as the records carry them, encoded here rather than kept per commit: the journal copies
            // them into its records before Append returns, so one buffer serves every group.
            if (_groupStates.Length < group.Count * EnvironmentState.Size) _groupStates = new byte[group.Count * 2 * EnvironmentState.Size];
            for (int i = 0; i < group.Count; i++)
            {
                var state = _groupStates.AsMemory(i * EnvironmentState.Size, EnvironmentState.Size);
                MemoryMarshal.Write(state.Span, in group[i].State);
                _groupEntries.Add(new JournalEntry(group[i].TransactionId, state, group[i].Runs));
            }
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
            PageWriter.MarkVerified(member.ValuesInPlace, _verified, _verifiedValues);
            member.JournalFileNumber = journalFile;
            var published = member.Snapshot;
            published.Place(_data.View, journalFile);
            Volatile.Write(ref _published, published);
            _host.Published(published);
        }
        TellCheckpointer();
    }

    /// <summary>
    /// Writes records with one journal write and returns their file, keeping the running average of a write's
    /// time. A failure refuses further writes: what was built on the records can no longer be trusted.
    /// </summary>
    private long AppendToJournal(List<JournalEntry> entries)
    {
        try
        {
            // The new session's records count only once the header names it.
            _host.WaitForRecovery();
            long started = Stopwatch.GetTimestamp();
            long file = _journal!.Append(entries).FileNumber;
            long took = Stopwatch.GetTimestamp() - started;
            long average = Volatile.Read(ref _journalWriteTicks);
            Volatile.Write(ref _journalWriteTicks, average == 0 ? took : average + (took - average) / 8);
            _host.JournalWritten(file);
            return file;
        }
        catch (Exception e)
        {
            _failure.Record(e, "A commit's journal write", replace: true);
            throw;
        }
    }

    /// <summary>After a group: the checkpointer counts the journal's bytes and the held pages, and prepares the next journal file if none waits.</summary>
    private void TellCheckpointer()
    {
        if (_journal is null || _checkpointer is null) return;
        _checkpointer.EnsureStarted();
        _checkpointer.OnCommit(_journal.BytesWritten);
        if (_journal.SpareWanted) _checkpointer.OnJournalSpareWanted();
        if (_unwritten is not null) _checkpointer.OnUnwrittenBytes(_unwritten.Bytes);
    }
}
