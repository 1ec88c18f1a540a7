using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using StorageEngine.BTrees;
using StorageEngine.Common;
using StorageEngine.Journal;
using StorageEngine.Paging;

namespace StorageEngine.Transactions;

/// <summary>
/// The pages of one write transaction: the snapshot it started from plus the pages it wrote, held privately
/// in native buffers until commit. Tree pages are copied on write to new page numbers (readers of older
/// snapshots keep the originals); bitmap pages are changed under their own numbers, because readers never
/// read them. Under the transaction's own pages lie those of earlier commits still waiting for their
/// journal write (<see cref="PendingPages"/>), then the snapshot's.
/// </summary>
internal sealed unsafe class PageWriter : IPageSink, IBitmapPageAccess
{
    /// <summary>Pages of one dirty run (one page, or an overflow value's pages); reused through <see cref="PageWriterTables"/>.</summary>
    internal sealed class DirtyRun
    {
        public NativeBuffer Buffer = null!;
        public int PageCount;
        /// <summary>Allocated by this transaction: no snapshot can see it.</summary>
        public bool IsNew;
        public bool IsOverflow;
        /// <summary>What the journal may diff the page against (see <see cref="JournalPageRun.BasePage"/>).</summary>
        public long BasePage;
    }

    private readonly PageWriterTables _tables;
    private readonly Dictionary<long, DirtyRun> _dirty;
    private readonly SnapshotPageSource _base;
    private readonly PendingPages? _pending;
    private readonly FreeSpaceMap _freeSpace;
    private readonly PageBufferPool _pool;
    private readonly List<long> _order;
    private readonly List<long> _freedEarlier;
    private long _pageCount;
    // Pages from here on were never handed out before this transaction (a file's page count never shrinks).
    private long _startPageCount;

    /// <summary>A writer over <paramref name="snapshot"/>, whose pages <paramref name="source"/> gives.</summary>
    public PageWriter(Snapshot snapshot, SnapshotPageSource source, PendingPages? pending, FreeSpaceMap freeSpace, PageBufferPool pool,
        byte* scratch, long transactionId)
    {
        _tables = new PageWriterTables();
        _dirty = _tables.Dirty;
        _order = _tables.Order;
        _freedEarlier = _tables.FreedEarlier;
        _base = source;
        _pending = pending;
        _freeSpace = freeSpace;
        _pool = pool;
        Scratch = scratch;
        TransactionId = transactionId;
        _pageCount = snapshot.State.PageCount;
        _startPageCount = _pageCount;
    }

    /// <summary>
    /// Starts the next write transaction, over <paramref name="snapshot"/>, on this writer once its last one ended
    /// (<see cref="Discard"/>) with tables worth keeping (<see cref="IsReusable"/>): a commit then makes no new
    /// writer, page source or tables.
    /// </summary>
    public void Begin(Snapshot snapshot, UnwrittenPages? unwritten, long transactionId)
    {
        if (!IsReusable) throw new InvalidOperationException("The page writer still holds a transaction's pages.");
        _base.Reset(snapshot, unwritten);
        TransactionId = transactionId;
        _pageCount = snapshot.State.PageCount;
        _startPageCount = _pageCount;
    }

    /// <summary>After <see cref="Discard"/>: whether the next transaction may use this writer (see <see cref="Begin"/>).</summary>
    public bool IsReusable => _tables.Reusable;

    public int PageSize => _base.PageSize;

    public long TransactionId { get; private set; }

    public byte* Scratch { get; }

    /// <summary>Pages in the file as this transaction leaves it.</summary>
    public long PageCount => _pageCount;

    public int DirtyCount => _dirty.Count;

    /// <summary>First pages of the runs this transaction freed that earlier commits wrote.</summary>
    public List<long> FreedEarlier => _freedEarlier;

    public byte* GetPage(long pageNumber) =>
        _dirty.TryGetValue(pageNumber, out var run) ? NotOverflow(run, pageNumber).Buffer.Pointer : CommittedPage(pageNumber);

    /// <summary>A page as the last commit left it: still in memory if its journal write is pending, else mapped.</summary>
    private byte* CommittedPage(long pageNumber)
    {
        if (_pending is null || !_pending.TryGet(pageNumber, out var run)) return _base.GetPage(pageNumber);
        if (run.IsOverflow) throw _base.OverflowOverTreePage(pageNumber);
        return run.Buffer.Pointer;
    }

    public void Prefetch(long pageNumber, int bytes)
    {
        bytes = Math.Min(bytes, PageSize);
        if (_dirty.TryGetValue(pageNumber, out var run)) CachePrefetch.Range(run.Buffer.Pointer, bytes);
        else if (_pending is not null && _pending.TryGet(pageNumber, out var pending)) CachePrefetch.Range(pending.Buffer.Pointer, bytes);
        else _base.Prefetch(pageNumber, bytes);
    }

    public byte* GetOverflow(long firstPage, long length, uint checksum)
    {
        CommittedRun found;
        if (_dirty.TryGetValue(firstPage, out var run)) found = new CommittedRun(firstPage, run.PageCount, run.Buffer, run.IsOverflow);
        else if (_pending is null || !_pending.TryGet(firstPage, out found)) return _base.GetOverflow(firstPage, length, checksum);
        if (!found.IsOverflow || length > (long)found.PageCount * PageSize)
            throw _base.NotAnOverflowValue(firstPage, length);
        return found.Buffer.Pointer;
    }

    public CorruptionException Corruption(long pageNumber, string problem) => _base.Corruption(pageNumber, problem);

    /// <summary>
    /// A tree or bitmap page that this transaction wrote an overflow value over: the free-space map gave out a
    /// page the trees still use, which only damaged files can make it do.
    /// </summary>
    private DirtyRun NotOverflow(DirtyRun run, long pageNumber) => run.IsOverflow
        ? throw _base.OverflowOverTreePage(pageNumber)
        : run;

    public byte* Modify(long pageNumber, out long newPageNumber)
    {
        if (_dirty.TryGetValue(pageNumber, out var run))
        {
            newPageNumber = pageNumber;
            return NotOverflow(run, pageNumber).Buffer.Pointer;
        }
        byte* original = CommittedPage(pageNumber);
        byte* copy = AllocatePage(out newPageNumber, clear: false);
        Buffer.MemoryCopy(original, copy, PageSize, PageSize);
        // The copy mostly equals the original, which recovery finds intact: on disk until a checkpoint covers its
        // release or, for a young page (see FreeSpaceMap.ReleaseYoung), rebuilt from its own record first.
        _dirty[newPageNumber].BasePage = pageNumber;
        ((PageHeader*)copy)->PageNumber = newPageNumber;
        _freeSpace.Free(pageNumber, 1, reusableNow: false, this, WrittenSinceCheckpoint(pageNumber));
        _freedEarlier.Add(pageNumber);
        return copy;
    }

    /// <summary>
    /// For a committed single page not yet in the data file, the transaction that wrote it (for a page of a
    /// commit still on its way to the journal, the oldest such commit: a lower bound); 0 for a page the data
    /// file holds and for the first page of a run. See <see cref="FreeSpaceMap.ReleaseYoung"/>.
    /// </summary>
    private long WrittenSinceCheckpoint(long pageNumber)
    {
        if (_pending is not null && _pending.TryGet(pageNumber, out var run)) return run.PageCount == 1 ? _pending.OldestTransactionId : 0;
        return _base.WrittenBy(pageNumber);
    }

    public byte* AllocatePage(out long pageNumber) => AllocatePage(out pageNumber, clear: true);

    private byte* AllocatePage(out long pageNumber, bool clear)
    {
        pageNumber = _freeSpace.Allocate(1, this, ref _pageCount);
        var buffer = _pool.Rent();
        if (clear) buffer.GetSpan().Clear();
        _dirty[pageNumber] = _tables.Run(buffer, 1, isNew: true, isOverflow: false, JournalPageRun.ZeroPage);
        return buffer.Pointer;
    }

    public byte* AllocateOverflow(int pageCount, out long firstPage)
    {
        firstPage = _freeSpace.Allocate(pageCount, this, ref _pageCount);
        var buffer = _pool.Rent(pageCount);
        _dirty[firstPage] = _tables.Run(buffer, pageCount, isNew: true, isOverflow: true, JournalPageRun.FullImage);
        return buffer.Pointer;
    }

    public void FreePage(long pageNumber) => FreeRun(pageNumber, 1);

    public void FreeOverflow(long firstPage, int pageCount) => FreeRun(firstPage, pageCount);

    private void FreeRun(long first, int count)
    {
        if (_dirty.Remove(first, out var run))
        {
            _pool.Return(run.Buffer);
            _freeSpace.Free(first, count, reusableNow: run.IsNew, this);
            if (!run.IsNew) _freedEarlier.Add(first);
            _tables.Recycle(run);
            return;
        }
        _freeSpace.Free(first, count, reusableNow: false, this, WrittenSinceCheckpoint(first));
        _freedEarlier.Add(first);
    }

    public byte* ReadBitmap(long pageNumber) => GetPage(pageNumber);

    public byte* WriteBitmap(long pageNumber, bool create)
    {
        if (_dirty.TryGetValue(pageNumber, out var run)) return run.Buffer.Pointer;
        var buffer = _pool.Rent();
        if (create)
        {
            buffer.GetSpan().Clear();
            var header = (PageHeader*)buffer.Pointer;
            header->PageNumber = pageNumber;
            header->Flags = PageFlags.FreeSpaceBitmap;
        }
        else
        {
            Buffer.MemoryCopy(CommittedPage(pageNumber), buffer.Pointer, PageSize, PageSize);
        }
        // A bitmap page changes in place: its diff is against its own committed version (see Seal).
        _dirty[pageNumber] = _tables.Run(buffer, 1, isNew: create, isOverflow: false, create ? JournalPageRun.ZeroPage : pageNumber);
        return buffer.Pointer;
    }

    /// <summary>
    /// Seals the pages for commit: stamps transaction ids and checksums, lists them in page order, and hands
    /// their buffers to the caller (<see cref="Discard"/> no longer frees them). With
    /// <paramref name="diffs"/>, tree pages that changed little from their base are journaled as diffs, encoded
    /// into an array rented from the shared pool that the caller returns once the record is written.
    /// A page changed in place (a bitmap page) is diffed against its own committed version: replaying such a
    /// diff onto whatever version the data file holds is exact because the data file never holds a version
    /// newer than the durable journal (pages go there after their record is durable: written through in Safe
    /// mode, synced first by <see cref="Journal.JournalWriter.SyncBuffered"/> in Lazy mode), since bits the
    /// diff leaves alone must already be right.
    /// </summary>
    /// <param name="pages">Receives the pages that go through the journal.</param>
    /// <param name="runs">Receives the journal runs of every page, in page order.</param>
    /// <param name="encodeDiffs">Journal small changes as diffs.</param>
    /// <param name="valuesInPlaceFrom">
    /// When the overflow values on pages this transaction added to the file come to at least this many bytes,
    /// they go to <paramref name="valuesInPlace"/> and are journaled as <see cref="JournalPageRun.InPlace"/> runs:
    /// the caller writes them into the data file, and syncs it, before the record. <see cref="long.MaxValue"/>:
    /// never. Only pages past the file's end at the transaction's start qualify: no record before this one
    /// wrote them, so replaying earlier records never writes over them, and no checkpoint holds a version of them.
    /// </param>
    /// <param name="valuesInPlace">Receives the values written in place.</param>
    /// <param name="diffs">The pooled array of the diffs (and in-place CRCs), or null.</param>
    public void Seal(List<CommittedRun> pages, List<JournalPageRun> runs, bool encodeDiffs, long valuesInPlaceFrom, List<CommittedRun> valuesInPlace,
        out byte[]? diffs)
    {
        _order.Clear();
        _order.AddRange(_dirty.Keys);
        _order.Sort();
        diffs = null;
        int diffLength = 0;
        // One pass counts the pages that may become diffs and the values on pages past the file's end at the start;
        // those go in place all together, when they come to valuesInPlaceFrom bytes, or not at all.
        int candidates = 0, inPlaceRuns = 0;
        long inPlaceBytes = 0;
        bool valuesMayGoInPlace = valuesInPlaceFrom != long.MaxValue;
        if (encodeDiffs || valuesMayGoInPlace)
        {
            foreach (var (page, run) in _dirty)
            {
                if (encodeDiffs && Diffable(run)) candidates++;
                if (!valuesMayGoInPlace || !run.IsOverflow || page < _startPageCount) continue;
                inPlaceRuns++;
                inPlaceBytes += (long)run.PageCount * PageSize;
            }
        }
        if (inPlaceBytes < valuesInPlaceFrom) inPlaceRuns = 0;
        if (candidates > 0 || inPlaceRuns > 0)
            diffs = ArrayPool<byte>.Shared.Rent(candidates * PageDiff.MaxLength(PageSize) + inPlaceRuns * sizeof(uint));
        Span<ulong> differs = stackalloc ulong[DifferingWords.EntriesFor(PageSize)];
        foreach (long page in _order)
        {
            var run = _dirty[page];
            var committed = new CommittedRun(page, run.PageCount, run.Buffer, run.IsOverflow);
            var journalRun = committed.ToJournalRun();
            if (run.IsOverflow)
            {
                if (inPlaceRuns > 0 && page >= _startPageCount)
                {
                    // The value's checksum, for whoever later reads the pages back for this record (a replica's shipping).
                    BinaryPrimitives.WriteUInt32LittleEndian(diffs.AsSpan(diffLength), Crc32C.Compute(run.Buffer.Memory.Span));
                    runs.Add(journalRun with { BasePage = JournalPageRun.InPlace, Diff = diffs.AsMemory(diffLength, sizeof(uint)) });
                    diffLength += sizeof(uint);
                    valuesInPlace.Add(committed);
                    continue;
                }
                pages.Add(committed);
                runs.Add(journalRun);
                continue;
            }
            pages.Add(committed);
            byte* buffer = run.Buffer.Pointer;
            ((PageHeader*)buffer)->TransactionId = TransactionId;
            bool diffable = Diffable(run);
            byte* basePage = diffable && run.BasePage != JournalPageRun.ZeroPage ? CommittedPage(run.BasePage) : null;
            // One comparison with the base serves both the checksum and the diff.
            if (basePage is not null || (diffable && candidates > 0))
                DifferingWords.Mark(basePage is null ? default : new ReadOnlySpan<byte>(basePage, PageSize), new ReadOnlySpan<byte>(buffer, PageSize), differs);
            if (basePage is not null && PageChecksum.TryUpdate(basePage, buffer, PageSize, differs, out uint checksum))
                ((PageHeader*)buffer)->Checksum = checksum;
            else
                PageChecksum.Stamp(buffer, PageSize);
            if (candidates > 0 && diffable)
            {
                // The stamped checksum is part of what changed.
                if (basePage is null || ((PageHeader*)buffer)->Checksum != ((PageHeader*)basePage)->Checksum)
                    DifferingWords.Set(differs, PageHeader.ChecksumOffset / DifferingWords.Word);
                int length = PageDiff.Encode(new ReadOnlySpan<byte>(buffer, PageSize), differs, diffs.AsSpan(diffLength));
                if (length >= 0)
                {
                    journalRun = journalRun with { BasePage = run.BasePage, Diff = diffs.AsMemory(diffLength, length) };
                    diffLength += length;
                }
            }
            runs.Add(journalRun);
        }
        foreach (var (_, run) in _dirty) _tables.Recycle(run);
        _dirty.Clear();
    }

    private static bool Diffable(DirtyRun run) => run.BasePage != JournalPageRun.FullImage;

    /// <summary>
    /// After the pages reached the data file: what this process wrote needs no checksum check on first read.
    /// Tree and bitmap pages go to <paramref name="treePages"/>, overflow values (by first page) to
    /// <paramref name="values"/>, each leaving the other set, since a page number may change kind.
    /// </summary>
    public static void MarkVerified(List<CommittedRun> pages, VerifiedPages treePages, VerifiedPages values)
    {
        foreach (var run in pages)
        {
            if (run.IsOverflow)
            {
                treePages.Remove(run.FirstPage, run.PageCount);
                values.Add(run.FirstPage);
            }
            else
            {
                values.Remove(run.FirstPage);
                treePages.Add(run.FirstPage);
            }
        }
    }

    /// <summary>
    /// A tree object over this writer for <paramref name="header"/>, one an earlier transaction used when there is
    /// one; taken back at <see cref="Discard"/>, so only a transaction whose handles refuse every operation once it
    /// has ended may rent one.
    /// </summary>
    public BTree RentTree(in TreeHeader header) => _tables.RentTree(this, header);

    /// <summary>Returns the buffers and the rented trees (after commit or on abort).</summary>
    public void Discard()
    {
        _freedEarlier.Clear();
        _tables.ReturnTrees();
        foreach (var (_, run) in _dirty)
        {
            _pool.Return(run.Buffer);
            _tables.Recycle(run);
        }
        _dirty.Clear();
        _order.Clear();
    }
}
