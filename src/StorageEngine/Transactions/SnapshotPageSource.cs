using StorageEngine.BTrees;
using StorageEngine.Common;
using StorageEngine.Paging;

namespace StorageEngine.Transactions;

/// <summary>
/// Pages of a committed snapshot: those a checkpoint has not yet written to the data file from memory
/// (<see cref="UnwrittenPages"/>), the rest straight from the mapping, checksum-verified on first touch.
/// </summary>
internal sealed unsafe class SnapshotPageSource : IPageSource
{
    // Set anew by Reset when the writer's page source moves on to a later snapshot.
    private byte* _base;
    private long _pageCount;
    private readonly VerifiedPages _verified;
    private readonly VerifiedPages _verifiedValues;
    private readonly string _path;
    private UnwrittenPages? _unwritten;

    public SnapshotPageSource(Snapshot snapshot, VerifiedPages verified, VerifiedPages verifiedValues, int pageSize, string path, UnwrittenPages? unwritten)
    {
        _unwritten = unwritten;
        _verifiedValues = verifiedValues;
        // Copied out of the snapshot: this is the read hot path.
        _base = snapshot.Base;
        _pageCount = snapshot.State.PageCount;
        _verified = verified;
        PageSize = pageSize;
        _path = path;
    }

    /// <summary>
    /// Makes this the source of <paramref name="snapshot"/>'s pages: the writer's source is reused from one write
    /// transaction to the next (see <see cref="PageWriter.Begin"/>).
    /// </summary>
    public void Reset(Snapshot snapshot, UnwrittenPages? unwritten)
    {
        _unwritten = unwritten;
        _base = snapshot.Base;
        _pageCount = snapshot.State.PageCount;
    }

    public int PageSize { get; }

    public byte* GetPage(long pageNumber)
    {
        if ((ulong)pageNumber >= (ulong)_pageCount || pageNumber < 2)
            throw Corruption(pageNumber, $"a reference to page {pageNumber}, outside the {_pageCount} pages of the snapshot.");
        if (_unwritten is { IsEmpty: false } unwritten && unwritten.TryGet(pageNumber, out var run))
        {
            return run.IsOverflow
                ? throw OverflowOverTreePage(pageNumber)
                : run.Buffer.Pointer;
        }
        byte* page = _base + pageNumber * PageSize;
        if (!_verified.Contains(pageNumber))
        {
            if (!PageChecksum.IsValid(page, PageSize, pageNumber))
                throw Corruption(pageNumber, "the page fails its checksum (or carries another page's number).");
            _verified.Add(pageNumber);
        }
        return page;
    }

    public void Prefetch(long pageNumber, int bytes)
    {
        if ((ulong)pageNumber >= (ulong)_pageCount) return;
        byte* page = _unwritten is { IsEmpty: false } unwritten && unwritten.TryGet(pageNumber, out var run)
            ? run.Buffer.Pointer
            : _base + pageNumber * PageSize;
        CachePrefetch.Range(page, Math.Min(bytes, PageSize));
    }

    public byte* GetOverflow(long firstPage, long length, uint checksum)
    {
        long pages = (length + PageSize - 1) / PageSize;
        if (firstPage < 2 || firstPage + pages > _pageCount)
            throw Corruption(firstPage, $"an overflow run of {pages} pages outside the {_pageCount} pages of the snapshot.");
        if (_unwritten is { IsEmpty: false } unwritten && unwritten.TryGet(firstPage, out var run))
        {
            return run.IsOverflow && run.PageCount >= pages
                ? run.Buffer.Pointer
                : throw NotAnOverflowValue(firstPage, length);
        }
        byte* data = _base + firstPage * PageSize;
        if (!_verifiedValues.Contains(firstPage))
        {
            if (BTree.ValueChecksum(new ReadOnlySpan<byte>(data, (int)length)) != checksum)
                throw Corruption(firstPage, "an overflow value fails its checksum.");
            _verifiedValues.Add(firstPage);
        }
        return data;
    }

    /// <summary>The transaction that wrote single page <paramref name="pageNumber"/> when it is not yet in the data file, else 0.</summary>
    public long WrittenBy(long pageNumber) => _unwritten?.WrittenBy(pageNumber) ?? 0;

    /// <summary>A tree or bitmap page an overflow value was written over: only damaged free-space bitmaps make that happen.</summary>
    public CorruptionException OverflowOverTreePage(long pageNumber) =>
        Corruption(pageNumber, $"page {pageNumber} is still in use but the free-space map let an overflow value take it.");

    /// <summary>An overflow reference to a run that holds something else, or less than the value's length.</summary>
    public CorruptionException NotAnOverflowValue(long firstPage, long length) =>
        Corruption(firstPage, $"an overflow value of {length} bytes refers to page {firstPage}, which was written as something else.");

    /// <remarks>A page number outside the file (a damaged reference) is reported at offset 0, the file as a whole.</remarks>
    public CorruptionException Corruption(long pageNumber, string problem) =>
        new(_path, (ulong)pageNumber < (ulong)_pageCount ? pageNumber * PageSize : 0, problem);
}
