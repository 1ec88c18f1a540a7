using StorageEngine.Platform;

namespace StorageEngine.Paging;

/// <summary>
/// The data file and its read-only mapping. Committed pages are written through the file (into the page
/// cache, not synced: the journal holds them durably until a checkpoint syncs this file) and read through
/// the mapping. When the file outgrows the mapping a larger mapping replaces it; the old one stays in use by the
/// snapshots that use it, and mapped until the environment closes (see <see cref="EnsureCapacity"/>).
/// </summary>
internal sealed unsafe class DataFile : IDisposable
{
    private readonly IStorageFile _file;
    // Mappings replaced by growth that a reader's snapshot may still use, by the transaction that replaced them,
    // and those no snapshot uses any more, kept until Dispose (see EnsureCapacity).
    // A class, not a tuple: a list of it runs the runtime's precompiled shared code (see SpareJournalFile).
    private readonly List<RetiredView> _retired = new();
    private readonly List<IMappedView> _unused = new();
    private readonly object _viewLock = new();
    private IMappedView _view;
    private bool _fileClosed;
    private readonly bool _readAhead;

    /// <summary>Maps <paramref name="file"/>, grown to <paramref name="pageCount"/> pages of <paramref name="pageSize"/> bytes first if shorter.</summary>
    /// <param name="file">The data file, which this instance then owns.</param>
    /// <param name="pageSize">Bytes per page.</param>
    /// <param name="pageCount">Pages the file must hold at least.</param>
    /// <param name="readAhead">Let the OS read ahead of page faults in the mappings (see <see cref="IMappedView.AdviseRandomAccess"/>).</param>
    public DataFile(IStorageFile file, int pageSize, long pageCount, bool readAhead = false)
    {
        _file = file;
        PageSize = pageSize;
        _readAhead = readAhead;
        if (file.Length < pageCount * pageSize) file.SetLength(pageCount * pageSize);
        _view = Map(file.Length);
    }

    private IMappedView Map(long length)
    {
        var view = _file.Map(length);
        if (!_readAhead) view.AdviseRandomAccess();
        return view;
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
    /// <remarks>
    /// The replaced mapping is not unmapped while the environment is open, even once no reader uses it (see
    /// <see cref="ReleaseRetired"/>, which only lets it go stale): a span
    /// an application kept past its transaction (a misuse reachable from safe C#) may point into it, and reading
    /// unmapped memory would crash the process. Kept mapped, it reads the file's current bytes, which at worst are
    /// a later version of the page. This is what LMDB promises too (it maps its whole map size once). The cost is
    /// address space, not memory: a file mapping's pages belong to the page cache, and the geometric growth keeps
    /// the retired mappings below about eight times the file's size in all (a 64-bit process has terabytes of it).
    /// An in-memory file's views hold memory, but its buffers double as they grow, so the retired ones together
    /// are smaller than the current one.
    /// Growing one mapping in place would avoid even that, but needs a different primitive on each system
    /// (mmap over a reservation on Unix, placeholders on Windows); keeping the old ones works the same everywhere.
    /// </remarks>
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
        var fresh = Map(_file.Length);
        lock (_viewLock)
        {
            _retired.Add(new RetiredView(transactionId, _view));
            Volatile.Write(ref _view, fresh);
        }
    }

    /// <summary>
    /// Lets the mappings that no reader older than <paramref name="oldestReader"/> can still use go stale: they
    /// stay readable until <see cref="Dispose"/>, for spans kept past their transaction, but need no longer
    /// show later writes (an in-memory file stops copying its writes into an old buffer).
    /// </summary>
    public void ReleaseRetired(long oldestReader)
    {
        lock (_viewLock)
        {
            for (int i = _retired.Count - 1; i >= 0; i--)
            {
                if (_retired[i].RetiredAt > oldestReader) continue;
                _retired[i].View.Retire();
                _unused.Add(_retired[i].View);
                _retired.RemoveAt(i);
            }
        }
    }

    public void Write(long firstPage, IReadOnlyList<ReadOnlyMemory<byte>> buffers) => _file.Write(firstPage * PageSize, buffers);

    public void Write(long firstPage, ReadOnlySpan<byte> bytes) => _file.Write(firstPage * PageSize, bytes);

    public void Flush() => _file.Flush();

    /// <summary>Starts writing pages already written to the file to the device, ahead of <see cref="Flush"/> (a hint, see <see cref="IStorageFile.StartWriteback"/>).</summary>
    public void StartWriteback(long firstPage, long pageCount) => _file.StartWriteback(firstPage * PageSize, pageCount * PageSize);

    /// <summary>
    /// Cuts unused space at the end (on close, so the file's size matches its pages). Only when nothing can read
    /// through the mappings any more: Windows refuses to cut a mapped file, and the mappings are made again.
    /// </summary>
    public void TrimTo(long pageCount)
    {
        lock (_viewLock)
        {
            DisposeReplaced();
            _view.Dispose();
            if (_file.Length > pageCount * PageSize) _file.SetLength(pageCount * PageSize);
            _view = Map(Math.Max(_file.Length, PageSize));
        }
    }

    /// <summary>
    /// Closes the file but leaves the mappings readable (until <see cref="Dispose"/>): an environment closed while
    /// read transactions were still registered (leaked, or running on other threads) lets them read on. A mapping
    /// stays valid after its file is closed, and reads whatever the file holds.
    /// </summary>
    public void CloseFile()
    {
        lock (_viewLock)
        {
            if (_fileClosed) return;
            _fileClosed = true;
        }
        _file.Dispose();
    }

    /// <summary>Unmaps the mappings growth replaced. Under _viewLock.</summary>
    private void DisposeReplaced()
    {
        foreach (var retired in _retired) retired.View.Dispose();
        _retired.Clear();
        foreach (var view in _unused) view.Dispose();
        _unused.Clear();
    }

    /// <summary>Unmaps every mapping and closes the file.</summary>
    public void Dispose()
    {
        lock (_viewLock)
        {
            DisposeReplaced();
            _view.Dispose();
        }
        CloseFile();
    }

    private sealed record RetiredView(long RetiredAt, IMappedView View);
}
