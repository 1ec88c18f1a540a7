using StorageEngine.Common;
using StorageEngine.Paging;

namespace StorageEngine.BTrees;

/// <summary>
/// One B+tree seen through one transaction. Reads go through <see cref="IPageSource"/>; a tree opened in a
/// write transaction changes pages through <see cref="IPageSink"/>, copy-on-write. This type knows nothing of
/// files, journals or snapshots.
/// </summary>
internal sealed unsafe partial class BTree
{
    /// <summary>Deepest tree supported; far beyond what 2^63 bytes of pages can build.</summary>
    public const int MaxDepth = 32;

    // Set by Reset: a write transaction's trees are reused by the writers after it (see PageWriter.RentTree).
    private IPageSource _source = null!;
    private IPageSink? _sink;
    // The sink's scratch, read once: the descent path lives there and is touched at every level of a change.
    private byte* _scratch;
    private int _pageSize;
    private bool _fixedInt64;
    private TreeHeader _header;
    // The writer's change stamp after this tree's last put appended to its last leaf without splitting; 0 when none.
    private long _appendStamp;

    public BTree(IPageSource source, in TreeHeader header) => Reset(source, header);

    /// <summary>
    /// Makes this object the tree <paramref name="header"/> describes, seen through <paramref name="source"/>, as a
    /// new one would be: nothing of what it was before is kept.
    /// </summary>
    public void Reset(IPageSource source, in TreeHeader header)
    {
        _source = source;
        _sink = source as IPageSink;
        _scratch = _sink is null ? null : _sink.Scratch;
        _pageSize = source.PageSize;
        _header = header;
        _fixedInt64 = (header.Flags & TreeFlags.FixedInt64Keys) != 0;
        _appendStamp = 0;
        _leafPathStamp = 0;
        _leafPathRightmost = false;
        _lowerBound = _upperBound = null;
        _lowerLength = _upperLength = 0;
        IsDirty = false;
        Version = 0;
        // A third of a page: any full page plus one such entry still splits into two pages that fit, and
        // 1 KB values (the UCSB shape) stay inline on 4 KB pages instead of taking an overflow page each.
        MaxInlineEntrySize = (_pageSize - PageHeader.Size) / 3 - Node.SlotSize;
    }

    /// <summary>The tree's header as changed by this transaction so far.</summary>
    public ref readonly TreeHeader Header => ref _header;

    /// <summary>True when this transaction changed the tree.</summary>
    public bool IsDirty { get; private set; }

    /// <summary>Increases with every change, so cursors know to find their place again.</summary>
    public long Version { get; private set; }

    public bool IsFixedInt64 => _fixedInt64;

    public IPageSource Source => _source;

    /// <summary>Leaf entries larger than this move their value to overflow pages.</summary>
    public int MaxInlineEntrySize { get; private set; }

    /// <summary>Largest key for a page size: at least three keys must fit a branch page (1 KB keys on 4 KB pages).</summary>
    public static int MaxKeySizeFor(int pageSize) => Math.Max(1024, (pageSize - PageHeader.Size) / 4 - 32);

    /// <summary>Creates an empty tree: one empty leaf as its root.</summary>
    public static TreeHeader Create(IPageSink sink, TreeFlags flags)
    {
        byte* page = sink.AllocatePage(out long pageNumber);
        Node.Initialize(page, pageNumber, LeafFlags(flags), sink.PageSize, sink.TransactionId);
        return new TreeHeader { RootPage = pageNumber, Depth = 1, LeafPages = 1, Flags = flags };
    }

    private static PageFlags LeafFlags(TreeFlags flags) =>
        PageFlags.Leaf | ((flags & TreeFlags.FixedInt64Keys) != 0 ? PageFlags.FixedInt64Keys : 0);

    private static PageFlags BranchFlags(TreeFlags flags) =>
        PageFlags.Branch | ((flags & TreeFlags.FixedInt64Keys) != 0 ? PageFlags.FixedInt64Keys : 0);

    /// <summary>Looks a key up. The value points into the page and stays valid as the transaction allows.</summary>
    public bool TryGet(scoped ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        byte* leaf = FindLeaf(key);
        int index = Node.SearchLeaf(leaf, key, _fixedInt64, out bool found);
        if (!found)
        {
            value = default;
            return false;
        }
        value = ReadValue(Node.Entry(leaf, index));
        return true;
    }

    /// <summary>The leaf whose range holds <paramref name="key"/>.</summary>
    private byte* FindLeaf(scoped ReadOnlySpan<byte> key)
    {
        long pageNumber = _header.RootPage;
        int depth = CheckedDepth();
        byte* page = GetNode(pageNumber, depth);
        for (int level = depth; level > 1; level--)
        {
            pageNumber = Node.Child(Node.Entry(page, Node.SearchBranch(page, key, _fixedInt64)));
            page = level == 2 ? GetLeafWhole(pageNumber) : GetNode(pageNumber, level - 1);
        }
        return page;
    }

    /// <summary>
    /// A leaf of this tree, checked as <see cref="GetNode"/> checks it, with every line of it asked for at once.
    /// In a tree larger than the cache the leaf is where a lookup waits: its binary search is a chain of misses
    /// at scattered offsets, which one request for the whole page turns into about one wait (1M-entry tree: 760
    /// against 660 ns per lookup). A tree that sits in L2 pays some 15 ns per lookup for the hint instead.
    /// </summary>
    public byte* GetLeafWhole(long pageNumber)
    {
        byte* page = _source.GetPage(pageNumber);
        CachePrefetch.Range(page, _pageSize);
        CheckNode(page, pageNumber, 1);
        return page;
    }

    /// <summary>The tree's depth, checked to be one a tree can have (it comes from a page or a header on disk).</summary>
    public int CheckedDepth()
    {
        int depth = _header.Depth;
        if (depth < 1 || depth > MaxDepth)
            throw _source.Corruption(_header.RootPage, $"the tree header gives a depth of {depth}, outside 1 to {MaxDepth}.");
        return depth;
    }

    /// <summary>
    /// A page of this tree at <paramref name="level"/> (1 for leaves), checked to be what a valid tree holds
    /// there: a leaf, or a branch with entries, marked for integer keys exactly when the tree has them. A page
    /// that passes its checksum may still be another tree's or another environment's.
    /// </summary>
    public byte* GetNode(long pageNumber, int level)
    {
        byte* page = _source.GetPage(pageNumber);
        CheckNode(page, pageNumber, level);
        return page;
    }

    /// <summary>Throws <see cref="CorruptionException"/> unless the page is a node a valid tree has at <paramref name="level"/>.</summary>
    public void CheckNode(byte* page, long pageNumber, int level)
    {
        var flags = Node.Header(page)->Flags;
        bool kind = level == 1 ? (flags & PageFlags.Leaf) != 0 : (flags & PageFlags.Branch) != 0 && Node.Count(page) > 0;
        if (!kind)
            throw _source.Corruption(pageNumber, level == 1 ? "expected a leaf page at tree level 1." : $"expected a non-empty branch page at tree level {level}.");
        if (((flags & PageFlags.FixedInt64Keys) != 0) != _fixedInt64)
            throw _source.Corruption(pageNumber, _fixedInt64 ? "a page without integer keys in a tree of integer keys." : "a page of integer keys in a tree of byte-string keys.");
    }

    /// <summary>The value of a leaf entry, from the page or its overflow run.</summary>
    public ReadOnlySpan<byte> ReadValue(byte* entry)
    {
        uint length = Node.LeafValueLength(entry);
        byte* payload = Node.LeafPayload(entry);
        if (Node.LeafKind(entry) == Node.InlineValue)
            return new ReadOnlySpan<byte>(payload, (int)length);
        long first = *(long*)payload;
        uint checksum = *(uint*)(payload + 8);
        return new ReadOnlySpan<byte>(_source.GetOverflow(first, length, checksum), (int)length);
    }

    private IPageSink Sink => _sink ?? throw new InvalidOperationException("The tree is open in a read transaction; it cannot be changed.");

    private void Touch()
    {
        IsDirty = true;
        Version++;
        (*ChangeStamp)++;
    }

    /// <summary>Pages needed by an overflow value of <paramref name="length"/> bytes.</summary>
    public int OverflowPageCount(long length) => (int)((length + _pageSize - 1) / _pageSize);

    internal static uint ValueChecksum(ReadOnlySpan<byte> value) => Crc32C.Compute(value);
}
