using StorageEngine.Journal;

namespace StorageEngine.Transactions;

/// <summary>
/// The pages of commits that are not yet in the data file, as the writer sees them: the latest version of
/// each page number wins. Only the holder of the write lock touches it, so a writer's view never changes
/// under it; the group writer only reads the commits' buffers and marks them complete.
/// </summary>
internal sealed class PendingPages
{
    /// <summary>Released commits' lists kept for the next commits, beyond which they are left to the collector.</summary>
    private const int MaxSpareLists = 16;

    private readonly Dictionary<long, CommittedRun> _pages = new();
    private readonly List<PendingCommit> _commits = new();

    // A commit's lists outlive it only until it is released; reusing them spares every commit allocating its own.
    private readonly Stack<List<CommittedRun>> _spareRuns = new();
    private readonly Stack<List<JournalPageRun>> _spareJournalRuns = new();
    private readonly Stack<List<CommittedRun>> _spareValuesInPlace = new();
    private readonly Stack<List<long>> _spareFreed = new();

    public bool IsEmpty => _commits.Count == 0;

    /// <summary>The newest commit, whose state the next writer starts from.</summary>
    public PendingCommit? Latest => _commits.Count == 0 ? null : _commits[^1];

    public void Add(PendingCommit commit)
    {
        _commits.Add(commit);
        Index(commit);
    }

    private void Index(PendingCommit commit)
    {
        foreach (var run in commit.Pages) _pages[run.FirstPage] = run;
        foreach (var run in commit.ValuesInPlace) _pages[run.FirstPage] = run;
    }

    /// <summary>The oldest commit still held (its buffers may be found here), or <see cref="long.MaxValue"/>.</summary>
    public long OldestTransactionId => _commits.Count == 0 ? long.MaxValue : _commits[0].TransactionId;

    public bool TryGet(long pageNumber, out CommittedRun run) => _pages.TryGetValue(pageNumber, out run);

    /// <summary>Empty lists for a new commit's sealed pages, journal runs and values in place: a released commit's, or new ones.</summary>
    public (List<CommittedRun> Pages, List<JournalPageRun> Runs, List<CommittedRun> ValuesInPlace) RentLists(int capacity) =>
        (_spareRuns.TryPop(out var pages) ? pages : new List<CommittedRun>(capacity),
         _spareJournalRuns.TryPop(out var runs) ? runs : new List<JournalPageRun>(capacity),
         _spareValuesInPlace.TryPop(out var values) ? values : new List<CommittedRun>());

    /// <summary>A copy of <paramref name="freed"/> for a new commit to keep: in a released commit's list, or a new one.</summary>
    public List<long> RentFreed(List<long> freed)
    {
        if (!_spareFreed.TryPop(out var copy)) copy = new List<long>(freed.Count);
        copy.AddRange(freed);
        return copy;
    }

    /// <summary>Frees a commit's buffers and keeps its lists for <see cref="RentLists"/>.</summary>
    public void Release(PendingCommit commit, PageBufferPool pool)
    {
        if (!commit.Release(pool, out var pages, out var runs, out var values, out var freed)) return;
        if (_spareRuns.Count < MaxSpareLists) _spareRuns.Push(pages);
        if (_spareJournalRuns.Count < MaxSpareLists) _spareJournalRuns.Push(runs);
        if (_spareValuesInPlace.Count < MaxSpareLists) _spareValuesInPlace.Push(values);
        if (_spareFreed.Count < MaxSpareLists) _spareFreed.Push(freed);
    }

    /// <summary>Forgets completed commits (their pages are now read from the data file) and frees their buffers.</summary>
    public void ReleaseCompleted(PageBufferPool pool)
    {
        int done = 0;
        while (done < _commits.Count && _commits[done].IsCompleted) done++;
        if (done == 0) return;
        for (int i = 0; i < done; i++) Release(_commits[i], pool);
        _commits.RemoveRange(0, done);
        _pages.Clear();
        foreach (var commit in _commits) Index(commit);
    }

    /// <summary>Frees every buffer (on close, once no group write runs).</summary>
    public void ReleaseAll(PageBufferPool pool)
    {
        foreach (var commit in _commits) Release(commit, pool);
        _commits.Clear();
        _pages.Clear();
    }
}
