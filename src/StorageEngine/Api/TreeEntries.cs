namespace StorageEngine;

/// <summary>
/// The entries of a tree within a key range, for <c>foreach</c>: <c>foreach (var (key, value) in tree.Entries(range))</c>.
/// Each loop makes one cursor (its only allocation) and disposes it when the loop ends.
/// </summary>
public readonly ref struct TreeEntries
{
    private readonly Tree _tree;
    private readonly KeyRange _range;

    internal TreeEntries(Tree tree, KeyRange range)
    {
        _tree = tree;
        _range = range;
    }

    /// <summary>Starts an enumeration over a new cursor of the range.</summary>
    public CursorEnumerator GetEnumerator() => new(_tree.CreateCursor(_range), ownsCursor: true);
}
