using StorageEngine.BTrees;

namespace StorageEngine;

/// <summary>
/// The leaves of one tree as one transaction sees it: for each leaf, left to right, the lower bound of the keys it
/// holds (the separator that routes keys to it) and, for devices that search without the engine, the bound's
/// first 8 bytes as a big-endian integer (<see cref="Prefixes"/>; zero-padded, 0 for the first leaf). A key
/// belongs to the last leaf whose bound is at most the key. Built by <see cref="Tree.GetLeafDirectory"/> from the
/// branch pages alone, and valid only for the snapshot it was built from: lookups with it through any other
/// transaction or tree, or after the tree changed, are refused.
/// </summary>
public sealed class LeafDirectory
{
    private readonly StorageEnvironment _environment;
    private readonly long _rootPage;
    // Set for a directory built in a write transaction: only that transaction, unchanged since, may use it.
    private readonly WriteTransaction? _writer;
    private readonly long _writerStamp;
    private readonly ulong[] _prefixes;
    private readonly long[] _pages;
    // Whole bounds, for trees whose keys are not 8-byte integers (their prefixes can tie).
    private readonly byte[][]? _bounds;

    internal LeafDirectory(Transaction transaction, Tree tree, ulong[] prefixes, long[] pages, byte[][]? bounds)
    {
        _environment = transaction.Environment;
        SnapshotId = transaction.SnapshotId;
        TreeName = tree.Name;
        _rootPage = tree.BTree.Header.RootPage;
        _writer = transaction as WriteTransaction;
        _writerStamp = tree.BTree.WriterChangeStamp;
        _prefixes = prefixes;
        _pages = pages;
        _bounds = bounds;
    }

    /// <summary>The snapshot the directory describes (<see cref="Transaction.SnapshotId"/> of the transaction that built it).</summary>
    public long SnapshotId { get; }

    /// <summary>The tree it describes.</summary>
    public string TreeName { get; }

    /// <summary>Number of leaves.</summary>
    public int LeafCount => _pages.Length;

    /// <summary>
    /// True when the prefixes are the whole bounds (a tree of 8-byte integer keys): a search of the prefixes then
    /// finds each key's leaf exactly. Otherwise keys sharing a prefix with a bound are settled by the engine.
    /// </summary>
    public bool PrefixesAreExact => _bounds is null;

    /// <summary>The first 8 bytes of each leaf's lower bound as big-endian integers, ascending.</summary>
    public ReadOnlyMemory<ulong> Prefixes => _prefixes;

    internal long Page(int leaf) => _pages[leaf];

    /// <summary>
    /// True when the directory describes <paramref name="tree"/> as its transaction sees it now (same environment,
    /// snapshot and tree, and in a write transaction, built by it with no change since): lookups through the tree
    /// accept it. A cache of device copies asks this to know when to build again.
    /// </summary>
    public bool IsCurrentFor(Tree tree)
    {
        ArgumentNullException.ThrowIfNull(tree);
        return Describes(tree.Transaction, tree);
    }

    /// <summary>True when the directory describes <paramref name="tree"/> as <paramref name="transaction"/> sees it now.</summary>
    internal bool Describes(Transaction transaction, Tree tree) =>
        ReferenceEquals(transaction.Environment, _environment)
        && transaction.SnapshotId == SnapshotId
        && string.Equals(tree.Name, TreeName, StringComparison.Ordinal)
        && tree.BTree.Header.RootPage == _rootPage
        && (transaction.IsWritable
            ? ReferenceEquals(transaction, _writer) && tree.BTree.WriterChangeStamp == _writerStamp
            : _writer is null);

    /// <summary>True when <paramref name="key"/> (whose prefix is <paramref name="prefix"/>) belongs to leaf <paramref name="leaf"/>.</summary>
    internal bool Holds(int leaf, ReadOnlySpan<byte> key, ulong prefix) =>
        (uint)leaf < (uint)_pages.Length
        && (leaf == 0 || CompareBound(leaf, key, prefix) <= 0)
        && (leaf + 1 == _pages.Length || CompareBound(leaf + 1, key, prefix) > 0);

    /// <summary>The leaf that <paramref name="key"/> belongs to, by binary search of the bounds.</summary>
    internal int FindLeaf(ReadOnlySpan<byte> key, ulong prefix)
    {
        int lo = 1, hi = _pages.Length - 1;
        while (lo <= hi)
        {
            int mid = (lo + hi) >>> 1;
            if (CompareBound(mid, key, prefix) <= 0) lo = mid + 1;
            else hi = mid - 1;
        }
        return lo - 1;
    }

    /// <summary>Negative, zero or positive as the bound of <paramref name="leaf"/> sorts before, with or after the key.</summary>
    private int CompareBound(int leaf, ReadOnlySpan<byte> key, ulong prefix)
    {
        ulong bound = _prefixes[leaf];
        if (bound != prefix || _bounds is null) return bound.CompareTo(prefix);
        return KeyOrder.Compare(_bounds[leaf], key);
    }
}
