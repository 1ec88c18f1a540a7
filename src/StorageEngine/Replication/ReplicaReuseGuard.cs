using StorageEngine.Journal;
using StorageEngine.Paging;

namespace StorageEngine.Replication;

/// <summary>
/// Keeps a replica's readers safe from the primary's page reuse. The primary hands a freed page out again
/// once none of its own readers can see it, but the replica's readers are its own: a replica reader on an
/// older snapshot may still read a page that the next shipped transaction overwrites. The guard learns from
/// the bitmap pages each transaction carries which pages it freed (bit 0 to 1) and which it took (1 to 0),
/// and tells the applier, for a transaction that takes pages freed by transaction F, to wait until no reader
/// is older than F, the primary's own rule. Used by the one applier only.
/// </summary>
internal sealed unsafe class ReplicaReuseGuard
{
    private readonly int _pageSize;
    private readonly long _pagesPerSection;
    private readonly int _bitmapPagesPerSection;
    private readonly FreeSpaceMap _layout;
    private readonly Dictionary<long, long> _freedBy = new();
    private readonly Queue<(long TransactionId, long[] Pages)> _byTransaction = new();

    public ReplicaReuseGuard(int pageSize)
    {
        _pageSize = pageSize;
        _layout = new FreeSpaceMap(pageSize);
        _pagesPerSection = _layout.PagesPerSection;
        _bitmapPagesPerSection = _layout.BitmapPagesPerSection;
    }

    /// <summary>Pages freed by transactions a reader may still predate.</summary>
    public int TrackedPages => _freedBy.Count;

    /// <summary>The newest transaction whose freed pages are still tracked, or 0.</summary>
    public long NewestTracked { get; private set; }

    /// <summary>Forgets pages freed by transactions up to <paramref name="oldestReader"/>: no reader can see them.</summary>
    public void Release(long oldestReader)
    {
        while (_byTransaction.Count > 0 && _byTransaction.Peek().TransactionId <= oldestReader)
        {
            var (transaction, pages) = _byTransaction.Dequeue();
            foreach (long page in pages)
                if (_freedBy.TryGetValue(page, out long by) && by == transaction) _freedBy.Remove(page);
        }
        if (_byTransaction.Count == 0) NewestTracked = 0;
    }

    /// <summary>
    /// Compares the bitmap pages among <paramref name="runs"/> with the current ones (mapped at
    /// <paramref name="current"/>, <paramref name="currentPageCount"/> pages). Returns the transaction the oldest
    /// reader must have reached before the runs may be written (0: none), and lists the pages the transaction frees.
    /// </summary>
    public long Inspect(byte* current, long currentPageCount, IReadOnlyList<JournalPageRun> runs, List<long> freed, List<long> taken)
    {
        long required = 0;
        int words = (_pageSize - PageHeader.Size) / 8;
        long bitsPerPage = words * 64L;
        foreach (var run in runs)
        {
            for (int i = 0; i < run.PageCount; i++)
            {
                long page = run.FirstPage + i;
                long section = page / _pagesPerSection;
                long index = page - _layout.BitmapPageOf(section);
                if (index < 0 || index >= _bitmapPagesPerSection) continue;
                fixed (byte* data = run.Data.Span)
                {
                    var next = (ulong*)(data + (long)i * _pageSize + PageHeader.Size);
                    var previous = page < currentPageCount ? (ulong*)(current + page * _pageSize + PageHeader.Size) : null;
                    long firstCovered = section * _pagesPerSection + index * bitsPerPage;
                    for (int w = 0; w < words; w++)
                    {
                        ulong before = previous is null ? 0 : previous[w];
                        ulong after = next[w];
                        for (ulong changed = before ^ after; changed != 0; changed &= changed - 1)
                        {
                            int bit = System.Numerics.BitOperations.TrailingZeroCount(changed);
                            long covered = firstCovered + w * 64L + bit;
                            if ((after & (1UL << bit)) != 0)
                            {
                                freed.Add(covered);
                            }
                            else
                            {
                                taken.Add(covered);
                                if (_freedBy.TryGetValue(covered, out long by)) required = Math.Max(required, by);
                            }
                        }
                    }
                }
            }
        }
        return required;
    }

    /// <summary>The transaction was applied: its taken pages are in use again, its freed ones tracked.</summary>
    public void Applied(long transactionId, List<long> freed, List<long> taken)
    {
        foreach (long page in taken) _freedBy.Remove(page);
        if (freed.Count == 0) return;
        foreach (long page in freed) _freedBy[page] = transactionId;
        _byTransaction.Enqueue((transactionId, freed.ToArray()));
        NewestTracked = transactionId;
    }
}
