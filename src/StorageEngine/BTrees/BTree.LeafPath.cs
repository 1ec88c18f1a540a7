namespace StorageEngine.BTrees;

// Reuse of a put's descent by the next put: keys written in order (a sorted batch, a range of nearby keys) mostly
// land in the leaf the previous put reached, whose copy-on-write path is already made.
internal sealed unsafe partial class BTree
{
    // The writer's change stamp after this tree's last put that left the descent path in the scratch intact (no
    // split: no branch page changed); 0 when none. Only while it equals the stamp do the fields below hold.
    private long _leafPathStamp;
    // Whether that path ran along the right edge of the tree.
    private bool _leafPathRightmost;
    // The leaf's key range from the branch entries of the path: [lower, upper), a length of -1 for no bound. The
    // pointers are into the path's branch pages, copies this transaction owns, which only a split changes.
    private byte* _lowerBound;
    private int _lowerLength;
    private byte* _upperBound;
    private int _upperLength;

    /// <summary>
    /// True when the descent path in the scratch is the one this tree's last put left, no change to any tree came
    /// since, and <paramref name="key"/> lies within its leaf's range: the key then belongs in that leaf.
    /// </summary>
    private bool LeafPathHolds(ReadOnlySpan<byte> key)
    {
        if (_leafPathStamp == 0 || _leafPathStamp != *ChangeStamp) return false;
        if (_lowerLength >= 0 && KeyOrder.Compare(key, new ReadOnlySpan<byte>(_lowerBound, _lowerLength)) < 0) return false;
        return _upperLength < 0 || KeyOrder.Compare(key, new ReadOnlySpan<byte>(_upperBound, _upperLength)) < 0;
    }

    /// <summary>Starts recording the bounds of a write descent (none yet: the whole key space).</summary>
    private void ClearLeafBounds()
    {
        _lowerLength = -1;
        _upperLength = -1;
    }

    /// <summary>Narrows the recorded bounds to child <paramref name="index"/> of the (writable) branch <paramref name="page"/>.</summary>
    private void NarrowLeafBounds(byte* page, int index)
    {
        if (index > 0)
        {
            byte* entry = Node.Entry(page, index);
            _lowerBound = entry + Node.BranchEntryHeaderSize;
            _lowerLength = Node.KeyLength(entry);
        }
        if (index + 1 < Node.Count(page))
        {
            byte* entry = Node.Entry(page, index + 1);
            _upperBound = entry + Node.BranchEntryHeaderSize;
            _upperLength = Node.KeyLength(entry);
        }
    }
}
