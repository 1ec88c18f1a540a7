namespace StorageEngine.BTrees;

// Batches: lookups of keys in ascending order that share the descent between neighbours, and the leaf bounds
// a device-side search structure is built from.
internal sealed unsafe partial class BTree
{
    /// <summary>
    /// The writer's count of changes to any of its trees (0 in a read transaction): values read before it moved
    /// may have moved with a page.
    /// </summary>
    public long WriterChangeStamp => _sink is null ? 0 : *ChangeStamp;

    /// <summary>
    /// Calls <paramref name="visit"/> with the lower bound of every leaf, left to right: the separator that routes
    /// keys to it (empty for the first leaf, which takes every key below the second's bound), and its page number.
    /// A key belongs to the last leaf whose bound is at most the key. Reads branch pages only.
    /// </summary>
    public void VisitLeafBounds(LeafBoundVisitor visit)
    {
        int depth = CheckedDepth();
        if (depth == 1)
        {
            visit(default, _header.RootPage);
            return;
        }
        VisitBounds(_header.RootPage, depth, default, visit);
    }

    public delegate void LeafBoundVisitor(ReadOnlySpan<byte> lowerBound, long leafPage);

    private void VisitBounds(long pageNumber, int level, ReadOnlySpan<byte> lowerBound, LeafBoundVisitor visit)
    {
        byte* page = GetNode(pageNumber, level);
        int count = Node.Count(page);
        for (int i = 0; i < count; i++)
        {
            byte* entry = Node.Entry(page, i);
            // Entry 0 stands for minus infinity within the page: its range starts at the page's own bound.
            var bound = i == 0 ? lowerBound : Node.BranchKey(entry);
            if (level == 2) visit(bound, Node.Child(entry));
            else VisitBounds(Node.Child(entry), level - 1, bound, visit);
        }
    }

    /// <summary>
    /// The leaf page <paramref name="pageNumber"/> of this tree, checked as a descent checks it, and the value of
    /// <paramref name="key"/> in it. The caller has found the leaf from bounds of this tree in this transaction.
    /// </summary>
    public bool TryGetInLeaf(long pageNumber, scoped ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        byte* leaf = CheckedDepth() == 1 ? GetNode(pageNumber, 1) : GetLeafWhole(pageNumber);
        int index = Node.SearchLeaf(leaf, key, _fixedInt64, out bool found);
        value = found ? ReadValue(Node.Entry(leaf, index)) : default;
        return found;
    }
}
