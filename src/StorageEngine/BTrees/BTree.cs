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

    private readonly IPageSource _source;
    private readonly IPageSink? _sink;
    private readonly int _pageSize;
    private readonly bool _fixedInt64;
    private TreeHeader _header;

    public BTree(IPageSource source, in TreeHeader header)
    {
        _source = source;
        _sink = source as IPageSink;
        _pageSize = source.PageSize;
        _header = header;
        _fixedInt64 = (header.Flags & TreeFlags.FixedInt64Keys) != 0;
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
    public int MaxInlineEntrySize { get; }

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
        byte* page = _source.GetPage(pageNumber);
        for (int level = _header.Depth; level > 1; level--)
        {
            if (!Node.IsBranch(page) || Node.Count(page) == 0)
                throw _source.Corruption(pageNumber, $"expected a non-empty branch page at tree level {level}.");
            pageNumber = Node.Child(Node.Entry(page, Node.SearchBranch(page, key, _fixedInt64)));
            page = _source.GetPage(pageNumber);
        }
        if (!Node.IsLeaf(page))
            throw _source.Corruption(pageNumber, "expected a leaf page at tree level 1.");
        return page;
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
    }

    /// <summary>Pages needed by an overflow value of <paramref name="length"/> bytes.</summary>
    public int OverflowPageCount(long length) => (int)((length + _pageSize - 1) / _pageSize);

    internal static uint ValueChecksum(ReadOnlySpan<byte> value) => Crc32C.Compute(value);
}
