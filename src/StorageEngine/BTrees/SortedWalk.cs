namespace StorageEngine.BTrees;

/// <summary>
/// Lookups of keys in ascending order through one tree: the first key descends from the root; each next key
/// climbs only until it is inside a page's range again and descends from there, so neighbours in one leaf
/// share the whole descent and keys a few leaves apart share all but the last levels. Holds the path (page
/// per level and the upper bound of each level's child) in caller-provided memory; reads only.
/// </summary>
internal unsafe ref struct SortedWalk
{
    private readonly BTree _tree;
    private readonly int _depth;
    private readonly bool _fixedInt64;
    // _pages[l]: the page at level l of the path (0 the root). _upper[l], _upperLength[l]: the exclusive upper
    // bound of keys under _pages[l + 1]; a length of -1 means none (the right edge of the tree).
    private readonly Span<nint> _pages;
    private readonly Span<nint> _upper;
    private readonly Span<int> _upperLength;
    private bool _started;

    /// <summary>Path memory: <paramref name="pages"/>, <paramref name="upper"/> and <paramref name="upperLength"/> hold <see cref="BTree.MaxDepth"/> elements.</summary>
    public SortedWalk(BTree tree, Span<nint> pages, Span<nint> upper, Span<int> upperLength)
    {
        _tree = tree;
        _depth = tree.CheckedDepth();
        _fixedInt64 = tree.IsFixedInt64;
        _pages = pages;
        _upper = upper;
        _upperLength = upperLength;
        _started = false;
    }

    /// <summary>Looks <paramref name="key"/> up; it must not sort before the key of the previous call.</summary>
    public bool TryGet(scoped ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        byte* leaf = Leaf(key);
        int index = Node.SearchLeaf(leaf, key, _fixedInt64, out bool found);
        value = found ? _tree.ReadValue(Node.Entry(leaf, index)) : default;
        return found;
    }

    private byte* Leaf(scoped ReadOnlySpan<byte> key)
    {
        int leafLevel = _depth - 1;
        int level = 0;
        if (_started)
        {
            // The deepest page of the path whose range still holds the key (ranges only grow towards the root).
            level = leafLevel;
            while (level > 0 && !Below(key, level - 1)) level--;
            if (level == leafLevel) return (byte*)_pages[leafLevel];
        }
        else
        {
            _pages[0] = (nint)(leafLevel == 0 ? _tree.GetNode(_tree.Header.RootPage, 1) : _tree.GetNode(_tree.Header.RootPage, _depth));
            _started = true;
            if (leafLevel == 0) return (byte*)_pages[0];
        }
        byte* page = (byte*)_pages[level];
        for (; level < leafLevel; level++)
        {
            int index = Node.SearchBranch(page, key, _fixedInt64);
            if (index + 1 < Node.Count(page))
            {
                var bound = Node.BranchKey(Node.Entry(page, index + 1));
                fixed (byte* b = bound) _upper[level] = (nint)b;
                _upperLength[level] = bound.Length;
            }
            else
            {
                _upper[level] = level > 0 ? _upper[level - 1] : 0;
                _upperLength[level] = level > 0 ? _upperLength[level - 1] : -1;
            }
            long child = Node.Child(Node.Entry(page, index));
            page = level + 1 == leafLevel ? _tree.GetLeafWhole(child) : _tree.GetNode(child, _depth - level - 1);
            _pages[level + 1] = (nint)page;
        }
        return page;
    }

    /// <summary>True when the key sorts before the upper bound of the child taken at <paramref name="level"/>.</summary>
    private readonly bool Below(scoped ReadOnlySpan<byte> key, int level)
    {
        int length = _upperLength[level];
        return length < 0 || KeyOrder.Compare(key, new ReadOnlySpan<byte>((byte*)_upper[level], length)) < 0;
    }
}
