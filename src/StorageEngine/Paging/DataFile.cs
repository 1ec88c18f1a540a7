using StorageEngine.Platform;

namespace StorageEngine.Paging;

/// <summary>
/// The data file and its read-only mapping. Committed pages are written through the file (into the page
/// cache, not synced: the journal holds them durably until a checkpoint syncs this file) and read through
/// the mapping. When the file outgrows the mapping a larger mapping replaces it; the old one stays alive for
/// the snapshots that use it and is released once no reader is older than its replacement.
/// </summary>
internal sealed unsafe class DataFile : IDisposable
{
    private readonly IStorageFile _file;
    private readonly List<(long RetiredAt, IMappedView View)> _retired = new();
    private readonly object _viewLock = new();
    private IMappedView _view;

    public DataFile(IStorageFile file, int pageSize, long pageCount)
    {
        _file = file;
        PageSize = pageSize;
        if (file.Length < pageCount * pageSize) file.SetLength(pageCount * pageSize);
        _view = file.Map(file.Length);
    }

    public int PageSize { get; }

    public string Path => _file.Path;

    public IStorageFile File => _file;

    /// <summary>The current mapping.</summary>
    public IMappedView View => Volatile.Read(ref _view);

    /// <summary>
    /// Grows the file and the mapping to hold <paramref name="pageCount"/> pages. Snapshots from
    /// <paramref name="transactionId"/> on use the new mapping. Growth is geometric (1/8) to keep remaps rare.
    /// </summary>
    public void EnsureCapacity(long pageCount, long transactionId)
    {
        long needed = pageCount * PageSize;
        if (needed <= _view.Length) return;
        if (_file.Length < needed)
        {
            long grown = Math.Max(needed, _file.Length + _file.Length / 8);
            grown = (grown + (1 << 20) - 1) & ~((1L << 20) - 1);
            _file.SetLength(grown);
        }
        var fresh = _file.Map(_file.Length);
        lock (_viewLock)
        {
            _retired.Add((transactionId, _view));
            Volatile.Write(ref _view, fresh);
        }
    }

    /// <summary>Releases mappings that no reader older than <paramref name="oldestReader"/> can still use.</summary>
    public void ReleaseRetired(long oldestReader)
    {
        lock (_viewLock)
        {
            for (int i = _retired.Count - 1; i >= 0; i--)
            {
                if (_retired[i].RetiredAt > oldestReader) continue;
                _retired[i].View.Dispose();
                _retired.RemoveAt(i);
            }
        }
    }

    public void Write(long firstPage, IReadOnlyList<ReadOnlyMemory<byte>> buffers) => _file.Write(firstPage * PageSize, buffers);

    public void Write(long firstPage, ReadOnlySpan<byte> bytes) => _file.Write(firstPage * PageSize, bytes);

    public void Flush() => _file.Flush();

    /// <summary>Cuts unused space at the end (on close, so the file's size matches its pages).</summary>
    public void TrimTo(long pageCount)
    {
        lock (_viewLock)
        {
            foreach (var (_, view) in _retired) view.Dispose();
            _retired.Clear();
            _view.Dispose();
            if (_file.Length > pageCount * PageSize) _file.SetLength(pageCount * PageSize);
            _view = _file.Map(Math.Max(_file.Length, PageSize));
        }
    }

    public void Dispose()
    {
        lock (_viewLock)
        {
            foreach (var (_, view) in _retired) view.Dispose();
            _retired.Clear();
            _view.Dispose();
        }
        _file.Dispose();
    }
}
