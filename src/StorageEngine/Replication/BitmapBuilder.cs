using StorageEngine.Common;
using StorageEngine.Paging;

namespace StorageEngine.Replication;

/// <summary>
/// Free-space bitmap pages built in memory for a restored data file: <see cref="FreeSpaceMap.Rebuild"/> sets
/// their bits from the pages the backup carried, then they are stamped and written.
/// </summary>
internal sealed unsafe class BitmapBuilder : IBitmapPageAccess, IDisposable
{
    private readonly SortedDictionary<long, NativeBuffer> _pages = new();
    private readonly int _pageSize;

    public BitmapBuilder(int pageSize) => _pageSize = pageSize;

    /// <summary>The bitmap pages touched so far, by page number.</summary>
    public IEnumerable<KeyValuePair<long, NativeBuffer>> Pages => _pages;

    public byte* ReadBitmap(long pageNumber) => Page(pageNumber);

    public byte* WriteBitmap(long pageNumber, bool create) => Page(pageNumber);

    /// <summary>The page, created with every bit clear (in use) on first touch.</summary>
    private byte* Page(long pageNumber)
    {
        if (!_pages.TryGetValue(pageNumber, out var buffer))
        {
            buffer = new NativeBuffer(_pageSize);
            var header = (PageHeader*)buffer.Pointer;
            header->PageNumber = pageNumber;
            header->Flags = PageFlags.FreeSpaceBitmap;
            _pages.Add(pageNumber, buffer);
        }
        return buffer.Pointer;
    }

    /// <summary>Stamps every page with <paramref name="transactionId"/> and its checksum.</summary>
    public void Seal(long transactionId)
    {
        foreach (var buffer in _pages.Values)
        {
            ((PageHeader*)buffer.Pointer)->TransactionId = transactionId;
            PageChecksum.Stamp(buffer.Pointer, _pageSize);
        }
    }

    public void Dispose()
    {
        foreach (var buffer in _pages.Values) buffer.Free();
        _pages.Clear();
    }
}
