using System.Collections;
using System.Runtime.InteropServices;
using System.Text;
using StorageEngine.BTrees;
using StorageEngine.Paging;

namespace StorageEngine.Transactions;

/// <summary>
/// Walks every tree of a snapshot and the free-space map, and lists what breaks the invariants. The bitmaps it
/// reads must belong to the same version as the trees: either a writer's view at the snapshot (a page writer
/// never written to), or a <see cref="BitmapCopy"/> taken at the snapshot while the trees are read through a
/// read transaction as writers go on.
/// </summary>
internal sealed unsafe class EnvironmentChecker
{
    private const int MaxProblems = 1000;
    private readonly Snapshot _snapshot;
    private readonly IPageSource _pages;
    private readonly IBitmapPageAccess _bitmaps;
    private readonly FreeSpaceMap _freeSpace;
    private readonly int _pageSize;
    private readonly List<string> _problems = new();
    private readonly BitArray _used;
    private readonly long _pageCount;
    private long _entries;
    private IProgress<CheckWalkProgress>? _progress;
    private CancellationToken _cancellation;
    private long _visited;
    private long _reported;

    /// <param name="snapshot">The version to check.</param>
    /// <param name="pages">The writer's view of it (so that bitmap pages are read as the writer sees them).</param>
    /// <param name="freeSpace">The free-space map.</param>
    /// <param name="pageSize">Bytes per page.</param>
    public EnvironmentChecker(Snapshot snapshot, PageWriter pages, FreeSpaceMap freeSpace, int pageSize)
        : this(snapshot, pages, pages, freeSpace, pageSize)
    {
    }

    /// <param name="snapshot">The version to check.</param>
    /// <param name="pages">Its tree pages (a read transaction's).</param>
    /// <param name="bitmaps">Its bitmap pages, at the same version as <paramref name="pages"/>.</param>
    /// <param name="freeSpace">The free-space map (its layout; the bits come from <paramref name="bitmaps"/>).</param>
    /// <param name="pageSize">Bytes per page.</param>
    public EnvironmentChecker(Snapshot snapshot, IPageSource pages, IBitmapPageAccess bitmaps, FreeSpaceMap freeSpace, int pageSize)
    {
        _snapshot = snapshot;
        _pages = pages;
        _bitmaps = bitmaps;
        _freeSpace = freeSpace;
        _pageSize = pageSize;
        _pageCount = snapshot.State.PageCount;
        _used = new BitArray(checked((int)_pageCount));
    }

    private IPageSource Pages => _pages;

    /// <param name="progress">Told of pages visited so far: each used page when the walk reaches it, each other page when the free-space pass does; it ends at the page count.</param>
    /// <param name="cancellation">Checked every <see cref="ReportInterval"/> pages.</param>
    public CheckResult Run(IProgress<CheckWalkProgress>? progress = null, CancellationToken cancellation = default)
    {
        _progress = progress;
        _cancellation = cancellation;
        Report();
        long trees = MarkAll();
        long free = 0, inUse = 0;
        var bitmaps = _bitmaps;
        try
        {
            for (long page = 0; page < _pageCount; page++)
            {
                bool isFree = _freeSpace.IsFree(bitmaps, page);
                bool used = _used[(int)page];
                if (!used) Visited();
                else if ((page & (ReportInterval - 1)) == 0) _cancellation.ThrowIfCancellationRequested();
                if (isFree) free++;
                if (used) inUse++;
                if (used && isFree) Problem($"page {page} is in use and also marked free.");
                else if (!used && !isFree) Problem($"page {page} is neither in use nor marked free (leaked).");
            }
            long past = _freeSpace.FirstFreePast(bitmaps, _pageCount, out _);
            if (past >= 0) Problem($"page {past}, past the {_pageCount} pages of the file, is marked free.");
        }
        catch (CorruptionException e)
        {
            Problem($"the free-space map: {e.Message}");
        }
        // Every page has been accounted for, even where damage cut a pass short.
        _visited = _pageCount;
        Report();
        return new CheckResult(_problems, trees, _entries, inUse, free, _pageCount);
    }

    /// <summary>The pages the trees, headers and bitmaps use (for rebuilding the free-space map).</summary>
    /// <exception cref="CorruptionException">A tree is damaged: the pages it would reach are unknown.</exception>
    public BitArray CollectUsedPages()
    {
        MarkAll();
        if (_problems.Count > 0)
            throw Pages.Corruption(0, $"the trees are damaged, so the free-space map cannot be rebuilt from them: {_problems[0]}");
        return _used;
    }

    /// <summary>Marks every page in use; returns the number of named trees.</summary>
    private long MarkAll()
    {
        Mark(0, "checkpoint header");
        Mark(1, "checkpoint header");
        for (long section = 0; section * _freeSpace.PagesPerSection < _pageCount; section++)
            for (int j = 0; j < _freeSpace.BitmapPagesPerSection; j++)
                Mark(_freeSpace.BitmapPageOf(section) + j, "free-space bitmap");

        long trees = 0;
        var rootHeader = _snapshot.State.RootTree;
        if (rootHeader.RootPage != 0)
        {
            var names = new List<(string Name, byte[] Key, TreeHeader Header)>();
            WalkTree("(tree of names)", rootHeader, (key, value) =>
            {
                if (value.Length != TreeHeader.Size) Problem($"the tree of names holds a {value.Length}-byte entry for '{Encoding.UTF8.GetString(key)}'.");
                else names.Add((Encoding.UTF8.GetString(key), key.ToArray(), MemoryMarshal.Read<TreeHeader>(value)));
            });
            _entries = 0;
            int hot = 0;
            foreach (var (name, key, entry) in names)
            {
                trees++;
                var header = entry;
                if ((entry.Flags & TreeFlags.HeaderInState) != 0)
                {
                    hot++;
                    if (HotTree.Resolve(_snapshot.State, entry, key) is not { } resolved)
                    {
                        Problem($"the entry of tree '{name}' says its header is in the environment state, which holds none that matches.");
                        continue;
                    }
                    header = resolved;
                }
                WalkTree($"tree '{name}'", header, null);
            }
            if (hot > 1) Problem($"{hot} entries of the tree of names say their header is in the environment state, which holds one.");
            if (hot == 0 && _snapshot.State.HotTree.RootPage != 0) Problem("the environment state holds a tree header that no entry of the tree of names refers to.");
        }
        else if (_snapshot.State.HotTree.RootPage != 0)
        {
            Problem("the environment state holds a tree header, but there is no tree of names.");
        }

        return trees;
    }

    private void WalkTree(string name, TreeHeader header, Action<ReadOnlySpan<byte>, ReadOnlySpan<byte>>? visit)
    {
        if (header.Depth < 1 || header.Depth > BTree.MaxDepth)
        {
            Problem($"{name} has a depth of {header.Depth}, outside 1 to {BTree.MaxDepth}.");
            return;
        }
        var tree = new BTree(Pages, header);
        var counts = new long[3]; // entries, branch pages, leaf pages; overflow counted apart
        long overflow = 0;
        WalkPage(name, tree, header.RootPage, header.Depth, null, null, counts, ref overflow, visit);
        if (counts[0] != header.EntryCount) Problem($"{name} says it has {header.EntryCount} entries but holds {counts[0]}.");
        if (counts[1] != header.BranchPages || counts[2] != header.LeafPages || overflow != header.OverflowPages)
            Problem($"{name} counts {header.BranchPages} branch, {header.LeafPages} leaf and {header.OverflowPages} overflow pages but has {counts[1]}, {counts[2]} and {overflow}.");
        _entries += counts[0];
    }

    private void WalkPage(string name, BTree tree, long pageNumber, int level, byte[]? lower, byte[]? upper,
        long[] counts, ref long overflow, Action<ReadOnlySpan<byte>, ReadOnlySpan<byte>>? visit)
    {
        if (_problems.Count >= MaxProblems) return;
        if (pageNumber < 0 || pageNumber >= _pageCount)
        {
            Problem($"{name} refers to page {pageNumber}, beyond the {_pageCount} pages of the file.");
            return;
        }
        byte* page;
        try
        {
            page = Pages.GetPage(pageNumber);
        }
        catch (CorruptionException e)
        {
            Problem($"{name}: {e.Message}");
            return;
        }
        if (!Mark(pageNumber, name)) return;
        bool leaf = level == 1;
        if (leaf ? !Node.IsLeaf(page) : !Node.IsBranch(page))
        {
            Problem($"{name}: page {pageNumber} should be a {(leaf ? "leaf" : "branch")} at level {level}.");
            return;
        }
        if (((Node.Header(page)->Flags & PageFlags.FixedInt64Keys) != 0) != tree.IsFixedInt64)
        {
            Problem($"{name}: page {pageNumber} is {(tree.IsFixedInt64 ? "not " : "")}marked for integer keys, unlike its tree.");
            return;
        }
        counts[leaf ? 2 : 1]++;
        int count = Node.Count(page);
        ReadOnlySpan<byte> previous = default;
        for (int i = 0; i < count; i++)
        {
            byte* entry = Node.Entry(page, i);
            var key = leaf ? Node.LeafKey(entry) : Node.BranchKey(entry);
            if (!leaf && i == 0)
            {
                if (key.Length != 0) Problem($"{name}: branch page {pageNumber} does not start with an empty key.");
            }
            else
            {
                if (i > (leaf ? 0 : 1) && previous.SequenceCompareTo(key) >= 0) Problem($"{name}: keys out of order in page {pageNumber} at slot {i}.");
                if (lower is not null && key.SequenceCompareTo(lower) < 0) Problem($"{name}: a key in page {pageNumber} is below its parent's bound.");
                if (upper is not null && key.SequenceCompareTo(upper) >= 0) Problem($"{name}: a key in page {pageNumber} is not below its parent's bound.");
                previous = key;
            }
            if (leaf)
            {
                counts[0]++;
                if (Node.LeafKind(entry) == Node.OverflowValue)
                {
                    long first = *(long*)Node.LeafPayload(entry);
                    int pages = tree.OverflowPageCount(Node.LeafValueLength(entry));
                    overflow += pages;
                    for (long p = first; p < first + pages; p++) Mark(p, $"{name} overflow value");
                }
                try
                {
                    var value = tree.ReadValue(entry);
                    visit?.Invoke(key, value);
                }
                catch (CorruptionException e)
                {
                    Problem($"{name}: {e.Message}");
                }
            }
            else
            {
                byte[]? childLower = i == 0 ? lower : key.ToArray();
                byte[]? childUpper = i + 1 < count ? Node.BranchKey(Node.Entry(page, i + 1)).ToArray() : upper;
                WalkPage(name, tree, Node.Child(entry), level - 1, childLower, childUpper, counts, ref overflow, visit);
            }
        }
    }

    /// <summary>Records a page as used; false (and a problem) when something else already uses it.</summary>
    private bool Mark(long page, string owner)
    {
        if (page < 0 || page >= _pageCount)
        {
            Problem($"{owner} uses page {page}, beyond the {_pageCount} pages of the file.");
            return false;
        }
        if (_used[(int)page])
        {
            Problem($"page {page} is used twice (again by {owner}).");
            return false;
        }
        _used[(int)page] = true;
        Visited();
        return true;
    }

    private const int ReportInterval = 1024;

    private void Visited()
    {
        if (++_visited - _reported >= ReportInterval) Report();
    }

    private void Report()
    {
        _cancellation.ThrowIfCancellationRequested();
        _reported = _visited;
        _progress?.Report(new CheckWalkProgress(_visited, _pageCount));
    }

    private void Problem(string text)
    {
        if (_problems.Count < MaxProblems) _problems.Add(text);
    }
}
