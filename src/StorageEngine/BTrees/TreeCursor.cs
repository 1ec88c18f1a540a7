using System.Runtime.CompilerServices;
using StorageEngine.Common;

namespace StorageEngine.BTrees;

/// <summary>
/// A position in a tree: the path of (page, slot) from the root to a leaf entry. In a write transaction the
/// tree may change under the cursor; the cursor then finds its place again from a copy of its current key.
/// </summary>
internal sealed unsafe class TreeCursor
{
    // How far ahead of a stepping cursor entries are prefetched: far enough that the work on the entries
    // between hides a miss, near enough that the line is still cached when the cursor gets there.
    private const int EntriesAhead = 4;
    // A leaf with at least this many entries is prefetched whole (see PrefetchLeaves); below it, entries are
    // large (more than a sixteenth of a page each) and only their first lines are.
    private const int DenseLeafEntries = 16;
    // What is prefetched of a sparse leaf's neighbour: its header and the slots of up to 112 entries.
    private const int SparseLeafPrefetchBytes = 256;

    private readonly BTree _tree;
    private readonly IPageSource _source;
    // Inline, so that a cursor is one allocation.
    private PagePath _pages;
    private SlotPath _indexes;
    private readonly bool _tracksChanges;
    private byte* _leaf;
    private int _depth;
    private long _version;
    private byte[] _savedKey = [];
    private int _savedKeyLength;
    // Set by the first step after a positioning move, when the cursor starts prefetching leaves: a lookup that
    // reads one entry pays for no prefetching, a scan finds each leaf on its way into the cache.
    private bool _scanning;

    public TreeCursor(BTree tree, bool tracksChanges)
    {
        _tree = tree;
        _source = tree.Source;
        _tracksChanges = tracksChanges;
    }

    public bool IsValid { get; private set; }

    private int LeafLevel => _depth - 1;

    public ReadOnlySpan<byte> Key => Node.LeafKey(CurrentEntry);

    public ReadOnlySpan<byte> Value => _tree.ReadValue(CurrentEntry);

    private byte* CurrentEntry
    {
        get
        {
            if (!IsValid || IsStale) return FindCurrentEntry();
            return Node.Entry(_leaf, _indexes[LeafLevel]);
        }
    }

    /// <summary>The slow path of <see cref="CurrentEntry"/>: not on an entry, or the tree changed since the last move.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private byte* FindCurrentEntry()
    {
        if (!IsValid) throw new InvalidOperationException("The cursor is not positioned on an entry.");
        byte[] key = SavedKey.ToArray();
        if (Seek(key)) return Node.Entry(_leaf, _indexes[LeafLevel]);
        StandOnRemoved(key);
        throw new InvalidOperationException(
            "The entry under the cursor was deleted in this transaction; move the cursor (Next, Previous, First, Last or Seek) before reading a key or value.");
    }

    /// <summary>
    /// Puts the cursor back where its deleted entry stood, after <see cref="Seek"/> found the entry after it. Reading
    /// a key must not move the cursor: Next would then skip that entry, and a range's bound, which the caller checks
    /// at each move, would not be checked for it.
    /// </summary>
    private void StandOnRemoved(byte[] key)
    {
        if (_savedKey.Length < key.Length) _savedKey = key;
        else key.CopyTo(_savedKey, 0);
        _savedKeyLength = key.Length;
        IsValid = true;
        // No tree has this version (versions count up from 0): the next move finds its place from the saved key.
        _version = RemovedEntryVersion;
    }

    private const long RemovedEntryVersion = -1;

    private bool IsStale => _tracksChanges && _version != _tree.Version;

    private ReadOnlySpan<byte> SavedKey => _savedKey.AsSpan(0, _savedKeyLength);

    public bool First() => Edge(last: false);

    public bool Last() => Edge(last: true);

    /// <summary>Moves to the first entry whose key is >= <paramref name="key"/>; returns whether it is equal.</summary>
    public bool Seek(ReadOnlySpan<byte> key)
    {
        Begin();
        long pageNumber = _tree.Header.RootPage;
        for (int level = 0; level < LeafLevel; level++)
        {
            byte* page = _tree.GetNode(pageNumber, _depth - level);
            int index = Node.SearchBranch(page, key, _tree.IsFixedInt64);
            _pages[level] = pageNumber;
            _indexes[level] = index;
            pageNumber = Node.Child(Node.Entry(page, index));
        }
        _leaf = LeafLevel > 0 ? _tree.GetLeafWhole(pageNumber) : _tree.GetNode(pageNumber, 1);
        _pages[LeafLevel] = pageNumber;
        int slot = Node.SearchLeaf(_leaf, key, _tree.IsFixedInt64, out bool found);
        _indexes[LeafLevel] = slot;
        if (slot < Node.Count(_leaf)) return Settle(true) && found;
        _indexes[LeafLevel] = slot - 1;
        IsValid = true;
        return StepForward() && false;
    }

    public bool Next()
    {
        if (!IsValid) return false;
        if (IsStale)
        {
            var saved = SavedKey.ToArray();
            bool exact = Seek(saved);
            if (!exact) return IsValid;
        }
        return StepForward();
    }

    public bool Previous()
    {
        if (!IsValid) return false;
        if (IsStale)
        {
            var saved = SavedKey.ToArray();
            Seek(saved);
            if (!IsValid) return Last();
        }
        return StepBackward();
    }

    private bool StepForward()
    {
        int leaf = LeafLevel;
        int index = ++_indexes[leaf];
        int count = Node.Count(_leaf);
        if (index < count)
        {
            if (!_scanning) PrefetchLeaves(forward: true);
            if (index + EntriesAhead < count) CachePrefetch.Line(Node.Entry(_leaf, index + EntriesAhead));
            return Settle(true);
        }
        for (int level = leaf - 1; level >= 0; level--)
        {
            byte* page = _source.GetPage(_pages[level]);
            if (_indexes[level] + 1 < Node.Count(page))
            {
                _indexes[level]++;
                bool valid = Descend(level, Node.Child(Node.Entry(page, _indexes[level])), last: false);
                PrefetchLeaves(forward: true);
                return valid;
            }
        }
        return Settle(false);
    }

    private bool StepBackward()
    {
        int leaf = LeafLevel;
        int index = --_indexes[leaf];
        if (index >= 0)
        {
            if (!_scanning) PrefetchLeaves(forward: false);
            if (index >= EntriesAhead) CachePrefetch.Line(Node.Entry(_leaf, index - EntriesAhead));
            return Settle(true);
        }
        for (int level = leaf - 1; level >= 0; level--)
        {
            if (_indexes[level] > 0)
            {
                byte* page = _source.GetPage(_pages[level]);
                _indexes[level]--;
                bool valid = Descend(level, Node.Child(Node.Entry(page, _indexes[level])), last: true);
                PrefetchLeaves(forward: false);
                return valid;
            }
        }
        return Settle(false);
    }

    /// <summary>
    /// At the first step after a positioning move and at each step into another leaf: starts loading this leaf
    /// and the one the cursor will enter after it, so that a leaf's worth of entries hides the wait for the
    /// next. A leaf of many small entries is wanted whole, and so is its neighbour: this leaf is asked for again
    /// although the last call asked for it as the neighbour, which measured faster (a processor may drop
    /// prefetches when too many misses are outstanding). A leaf of a few large entries is not: a scan that
    /// reads keys would pull in kilobytes of values it never reads and be bound by memory bandwidth, so only
    /// each entry's first line (its header and key) and the neighbour's header and slots are asked for.
    /// A neighbour under another parent is not looked for (one leaf in a branch's fan-out).
    /// </summary>
    private void PrefetchLeaves(bool forward)
    {
        _scanning = true;
        int count = Node.Count(_leaf);
        bool dense = count >= DenseLeafEntries;
        if (dense)
        {
            // Entries lie between the page's upper bound and its end; the slot array before them is cached already.
            int upper = Node.Header(_leaf)->Upper;
            CachePrefetch.Range(_leaf + upper, _source.PageSize - upper);
        }
        else
        {
            for (int i = 0; i < count; i++) CachePrefetch.Line(Node.Entry(_leaf, i));
        }
        int parentLevel = LeafLevel - 1;
        if (parentLevel < 0) return;
        byte* parent = _source.GetPage(_pages[parentLevel]);
        int index = _indexes[parentLevel] + (forward ? 1 : -1);
        if ((uint)index < (uint)Node.Count(parent))
            _source.Prefetch(Node.Child(Node.Entry(parent, index)), dense ? _source.PageSize : SparseLeafPrefetchBytes);
    }

    private bool Edge(bool last)
    {
        Begin();
        return Descend(-1, _tree.Header.RootPage, last);
    }

    /// <summary>Walks down from the child of <paramref name="level"/> along the left or right edge.</summary>
    private bool Descend(int level, long pageNumber, bool last)
    {
        for (int l = level + 1; l < LeafLevel; l++)
        {
            byte* page = _tree.GetNode(pageNumber, _depth - l);
            int index = last ? Node.Count(page) - 1 : 0;
            _pages[l] = pageNumber;
            _indexes[l] = index;
            pageNumber = Node.Child(Node.Entry(page, index));
        }
        _leaf = _tree.GetNode(pageNumber, 1);
        _pages[LeafLevel] = pageNumber;
        int count = Node.Count(_leaf);
        _indexes[LeafLevel] = last ? count - 1 : 0;
        return Settle(count > 0);
    }

    private void Begin()
    {
        _depth = _tree.CheckedDepth();
        _version = _tree.Version;
        _scanning = false;
    }

    private bool Settle(bool valid)
    {
        IsValid = valid;
        if (valid && _tracksChanges)
        {
            var key = Node.LeafKey(Node.Entry(_leaf, _indexes[LeafLevel]));
            if (_savedKey.Length < key.Length) _savedKey = new byte[Math.Max(key.Length, 64)];
            key.CopyTo(_savedKey);
            _savedKeyLength = key.Length;
            _version = _tree.Version;
        }
        return valid;
    }

    [InlineArray(BTree.MaxDepth)]
    private struct PagePath
    {
        private long _element;
    }

    [InlineArray(BTree.MaxDepth)]
    private struct SlotPath
    {
        private int _element;
    }
}
