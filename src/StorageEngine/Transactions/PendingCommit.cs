using StorageEngine.Common;
using StorageEngine.Journal;

namespace StorageEngine.Transactions;

/// <summary>
/// A transaction that has committed in memory and waits for its journal record: the write lock is already
/// free for the next writer, which builds on it, while the committing thread waits for the group write that
/// makes it durable. Readers see it only once it is durable and in the data file.
/// </summary>
internal sealed class PendingCommit
{
    private volatile bool _completed;
    private bool _pagesHandedOver;
    private bool _released;

    public PendingCommit(EnvironmentState state, List<CommittedRun> pages, List<JournalPageRun> runs, byte[]? diffs, long recordBytes,
        List<long> freed, List<CommittedRun> valuesInPlace)
    {
        ValuesInPlace = valuesInPlace;
        Freed = freed;
        Diffs = diffs;
        Snapshot = new Snapshot(state);
        Pages = pages;
        Runs = runs;
        RecordBytes = recordBytes;
    }

    /// <summary>
    /// A transaction another environment committed (a primary's, shipped to this replica), applied through the
    /// same group write: it holds no page buffers of this environment, frees nothing here, and its runs go
    /// straight into the data file.
    /// </summary>
    public static PendingCommit Applied(EnvironmentState state, List<JournalPageRun> runs)
    {
        long bytes = 0;
        foreach (var run in runs) bytes += run.Data.Length;
        return new PendingCommit(state, new List<CommittedRun>(), runs, null, bytes, new List<long>(), new List<CommittedRun>()) { IsApplied = true };
    }

    /// <summary>True for a transaction made by <see cref="Applied"/>.</summary>
    public bool IsApplied { get; private init; }

    /// <summary>The snapshot the commit publishes once it is durable and placed (see <see cref="Snapshot.Place"/>).</summary>
    public Snapshot Snapshot { get; }

    public ref readonly EnvironmentState State => ref Snapshot.State;

    public long TransactionId => State.TransactionId;

    /// <summary>
    /// The pages that go through the journal, owned by this commit until it is complete and the writer releases
    /// them (or until they are handed over, see <see cref="HandOverPages"/>).
    /// </summary>
    public List<CommittedRun> Pages { get; }

    /// <summary>
    /// Overflow values on new pages, which the group writer puts into the data file before the record (see
    /// <see cref="JournalPageRun.InPlace"/>); owned by this commit until the writer releases it. Usually empty.
    /// </summary>
    public List<CommittedRun> ValuesInPlace { get; }

    /// <summary>First pages of the runs it freed that earlier commits wrote.</summary>
    public List<long> Freed { get; }

    /// <summary>
    /// Hands the pages over to <see cref="UnwrittenPages"/>: <see cref="Release"/> no longer frees them.
    /// Called by the group writer before the commit completes.
    /// </summary>
    /// <remarks>
    /// The list stays as it is: until the commit is complete and dropped from <see cref="PendingPages"/>, the
    /// writer may still find the pages through it, and <see cref="UnwrittenPages"/> keeps their buffers alive
    /// as long as a pending commit names them.
    /// </remarks>
    public void HandOverPages() => _pagesHandedOver = true;

    /// <summary>The same pages as journal runs, in page order.</summary>
    public List<JournalPageRun> Runs { get; }

    /// <summary>The pooled array the runs' diffs are encoded in, if any.</summary>
    public byte[]? Diffs { get; private set; }

    /// <summary>
    /// Frees the pages and the diffs (the commit is complete, or failed before it was queued) and gives up its
    /// lists, emptied, for reuse: nothing may read <see cref="Pages"/>, <see cref="Runs"/> or <see cref="Freed"/> afterwards. False
    /// when it was released before.
    /// </summary>
    public bool Release(PageBufferPool pool, out List<CommittedRun> pages, out List<JournalPageRun> runs, out List<CommittedRun> valuesInPlace,
        out List<long> freed)
    {
        pages = Pages;
        runs = Runs;
        valuesInPlace = ValuesInPlace;
        freed = Freed;
        if (_released) return false;
        _released = true;
        if (!_pagesHandedOver)
        {
            foreach (var run in Pages) run.Release(pool);
        }
        foreach (var run in ValuesInPlace) run.Release(pool);
        Pages.Clear();
        ValuesInPlace.Clear();
        Runs.Clear();
        Freed.Clear();
        if (Diffs is { } diffs) System.Buffers.ArrayPool<byte>.Shared.Return(diffs);
        Diffs = null;
        return true;
    }

    /// <summary>Bytes the record carries: full images and diffs.</summary>
    public long RecordBytes { get; }

    /// <summary>The journal file its record went to.</summary>
    public long JournalFileNumber { get; set; }

    /// <summary>Why the group write failed; null when it succeeded.</summary>
    public Exception? Failure { get; private set; }

    /// <summary>Written (or failed) and no longer touched by the group writer.</summary>
    public bool IsCompleted => _completed;

    /// <summary>When the commit was sealed in memory (a Stopwatch timestamp), for its duration.</summary>
    public long PreparedAt { get; } = System.Diagnostics.Stopwatch.GetTimestamp();

    /// <summary>The activity the commit was made in, so that its trace span has the committer's parent.</summary>
    public System.Diagnostics.ActivityContext Parent { get; } = System.Diagnostics.Activity.Current?.Context ?? default;

    public void Complete(Exception? failure)
    {
        Failure = failure;
        _completed = true;
        EngineInstruments.CommitCompleted(PreparedAt, Parent, TransactionId, failure);
    }
}
