using StorageEngine.BTrees;
using StorageEngine.Common;

namespace StorageEngine.Transactions;

/// <summary>
/// The page table of a write transaction (its dirty runs by page number, the list it sorts them in, spare run
/// objects, the pages it freed, its B-tree objects), which its page writer keeps from one write transaction to the
/// next so that a commit does not build a new dictionary, list, run object or tree object each time. One
/// transaction uses it at a time.
/// </summary>
internal sealed class PageWriterTables
{
    // A transaction that changed more pages than this leaves tables too large to keep.
    private const int MaxKeptPages = 4096;

    // More trees than a transaction usually opens; those beyond it are left to the collector.
    private const int MaxSpareTrees = 16;

    private readonly Stack<PageWriter.DirtyRun> _spareRuns = new();
    private readonly Stack<BTree> _spareTrees = new();
    private readonly List<BTree> _rentedTrees = new();

    /// <summary>Dirty runs by first page.</summary>
    public Dictionary<long, PageWriter.DirtyRun> Dirty { get; } = new();

    /// <summary>The dirty pages in page order, for sealing.</summary>
    public List<long> Order { get; } = new();

    /// <summary>First pages of the runs the transaction freed that earlier commits wrote (see <see cref="PageWriter.FreedEarlier"/>).</summary>
    public List<long> FreedEarlier { get; } = new();

    /// <summary>
    /// Empty and small enough to keep for the next transaction. The spare runs tell the size: every run the dirty
    /// table held came back to them, so they number at least as many as the largest table (and sort list) grew to.
    /// </summary>
    public bool Reusable => Dirty.Count == 0 && FreedEarlier.Count == 0 && _rentedTrees.Count == 0 && _spareRuns.Count <= MaxKeptPages;

    /// <summary>A run object, reused when one is spare.</summary>
    public PageWriter.DirtyRun Run(NativeBuffer buffer, int pageCount, bool isNew, bool isOverflow, long basePage)
    {
        if (!_spareRuns.TryPop(out var run)) run = new PageWriter.DirtyRun();
        run.Buffer = buffer;
        run.PageCount = pageCount;
        run.IsNew = isNew;
        run.IsOverflow = isOverflow;
        run.BasePage = basePage;
        return run;
    }

    /// <summary>A tree object for the transaction, reused when one is spare; it comes back at <see cref="ReturnTrees"/>.</summary>
    public BTree RentTree(IPageSource source, in TreeHeader header)
    {
        if (_spareTrees.TryPop(out var tree)) tree.Reset(source, header);
        else tree = new BTree(source, header);
        _rentedTrees.Add(tree);
        return tree;
    }

    /// <summary>
    /// Takes back every tree object rented since the last call, once their transaction has ended: its handles
    /// (<see cref="Tree"/>, cursors) refuse every operation from then on, so none reaches a tree after it is reused.
    /// </summary>
    public void ReturnTrees()
    {
        foreach (var tree in _rentedTrees)
        {
            if (_spareTrees.Count < MaxSpareTrees) _spareTrees.Push(tree);
        }
        _rentedTrees.Clear();
    }

    /// <summary>Takes back a run object the dirty table no longer holds.</summary>
    public void Recycle(PageWriter.DirtyRun run)
    {
        run.Buffer = null!;
        _spareRuns.Push(run);
    }
}
