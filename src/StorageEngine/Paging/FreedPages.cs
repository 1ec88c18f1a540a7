namespace StorageEngine.Paging;

/// <summary>
/// Freed pages that may not be allocated again yet, and what releases each: the commit that freed it, once no
/// reader is older (and, with a journal, a checkpoint covers it; see <see cref="FreeSpaceMap"/>). Their bitmap bits
/// already say free; this is the in-memory hold on top, which a restart drops because no reader then exists.
/// </summary>
/// <remarks>
/// A young page (a single page whose committed version is still only in memory) waits in a queue of its own, since
/// <see cref="ReleaseYoung"/> may release it before the next checkpoint.
/// </remarks>
internal sealed class FreedPages
{
    private readonly PageSet _held = new();
    // One entry per page rather than an array per commit: no allocation per commit, none surviving until a checkpoint.
    private readonly Queue<(long TransactionId, long Page)> _byTransaction = new();
    private readonly List<long> _transaction = new();
    // Pages this transaction freed that were written after some checkpoint began, with the transaction that
    // wrote them; at commit they join _youngByTransaction instead of _byTransaction.
    private readonly List<(long Page, long WrittenBy)> _transactionYoung = new();
    private readonly Queue<(long TransactionId, long Page, long WrittenBy)> _youngByTransaction = new();

    /// <summary>Pages held: freed by this transaction or by commits that a reader or the checkpoint still needs.</summary>
    public long Count => _held.Count;

    /// <summary>The held pages among the 64 of word <paramref name="word"/> (page = word × 64 + bit), for the allocator's search.</summary>
    public ulong Word(long word) => _held.Word(word);

    /// <summary>
    /// Holds the <paramref name="count"/> pages from <paramref name="first"/>, freed by the writing transaction;
    /// with <paramref name="writtenBy"/> above 0, the single page is young (see <see cref="FreeSpaceMap.Free"/>).
    /// </summary>
    public void Hold(long first, int count, long writtenBy)
    {
        if (count == 1 && writtenBy > 0)
        {
            _held.Add(first);
            _transactionYoung.Add((first, writtenBy));
            return;
        }
        for (long p = first; p < first + count; p++)
        {
            _held.Add(p);
            _transaction.Add(p);
        }
    }

    /// <summary>
    /// The writing transaction committed as <paramref name="transactionId"/>; returns how many pages it freed that
    /// wait for a checkpoint (young ones left out: they usually need none).
    /// </summary>
    public int Commit(long transactionId)
    {
        int freed = _transaction.Count;
        if (freed > 0)
        {
            foreach (long page in _transaction) _byTransaction.Enqueue((transactionId, page));
            _transaction.Clear();
        }
        if (_transactionYoung.Count > 0)
        {
            foreach (var (page, writtenBy) in _transactionYoung) _youngByTransaction.Enqueue((transactionId, page, writtenBy));
            _transactionYoung.Clear();
        }
        return freed;
    }

    /// <summary>The writing transaction was abandoned: what it freed is not freed.</summary>
    public void Abort()
    {
        foreach (long p in _transaction) _held.Remove(p);
        _transaction.Clear();
        foreach (var (p, _) in _transactionYoung) _held.Remove(p);
        _transactionYoung.Clear();
    }

    /// <summary>
    /// Releases young pages freed by transactions up to <paramref name="oldestVisible"/>: with
    /// <paramref name="releaseEarly"/>, one written after <paramref name="checkpointStarted"/> goes to
    /// <paramref name="reusable"/> at once; others join the pages waiting for a checkpoint (see
    /// <see cref="FreeSpaceMap.ReleaseYoung"/>).
    /// </summary>
    public void ReleaseYoung(long oldestVisible, long checkpointStarted, bool releaseEarly, Action<long> reusable)
    {
        while (_youngByTransaction.TryPeek(out var next) && next.TransactionId <= oldestVisible)
        {
            _youngByTransaction.Dequeue();
            if (next.WrittenBy > checkpointStarted && releaseEarly)
            {
                _held.Remove(next.Page);
                reusable(next.Page);
            }
            else _byTransaction.Enqueue((next.TransactionId, next.Page));
        }
    }

    /// <summary>Pages freed by transactions up to <paramref name="oldestReader"/> go to <paramref name="reusable"/>.</summary>
    public void ReleaseUpTo(long oldestReader, Action<long> reusable)
    {
        while (_byTransaction.TryPeek(out var next) && next.TransactionId <= oldestReader)
        {
            long page = _byTransaction.Dequeue().Page;
            _held.Remove(page);
            reusable(page);
        }
    }
}
