namespace StorageEngine.Transactions;

/// <summary>
/// The pages of commits that are not yet in the data file, as the writer sees them: the latest version of
/// each page number wins. Only the holder of the write lock touches it, so a writer's view never changes
/// under it; the group writer only reads the commits' buffers and marks them complete.
/// </summary>
internal sealed class PendingPages
{
    private readonly Dictionary<long, CommittedRun> _pages = new();
    private readonly List<PendingCommit> _commits = new();

    public bool IsEmpty => _commits.Count == 0;

    /// <summary>The newest commit, whose state the next writer starts from.</summary>
    public PendingCommit? Latest => _commits.Count == 0 ? null : _commits[^1];

    public void Add(PendingCommit commit)
    {
        _commits.Add(commit);
        foreach (var run in commit.Pages) _pages[run.FirstPage] = run;
    }

    /// <summary>The oldest commit still held (its buffers may be found here), or <see cref="long.MaxValue"/>.</summary>
    public long OldestTransactionId => _commits.Count == 0 ? long.MaxValue : _commits[0].TransactionId;

    public bool TryGet(long pageNumber, out CommittedRun run) => _pages.TryGetValue(pageNumber, out run);

    /// <summary>Forgets completed commits (their pages are now read from the data file) and frees their buffers.</summary>
    public void ReleaseCompleted(PageBufferPool pool)
    {
        int done = 0;
        while (done < _commits.Count && _commits[done].IsCompleted) done++;
        if (done == 0) return;
        for (int i = 0; i < done; i++) _commits[i].Release(pool);
        _commits.RemoveRange(0, done);
        _pages.Clear();
        foreach (var commit in _commits)
        {
            foreach (var run in commit.Pages) _pages[run.FirstPage] = run;
        }
    }

    /// <summary>Frees every buffer (on close, once no group write runs).</summary>
    public void ReleaseAll(PageBufferPool pool)
    {
        foreach (var commit in _commits) commit.Release(pool);
        _commits.Clear();
        _pages.Clear();
    }
}
