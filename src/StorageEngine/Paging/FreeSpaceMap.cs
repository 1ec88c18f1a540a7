using System.Numerics;

namespace StorageEngine.Paging;

/// <summary>
/// Which pages are free. The data file is cut into sections of as many pages as a bitmap page has bits;
/// each section's bitmap page (page 2 for the first section, the section's first page for the others) holds
/// one bit per page, 1 meaning free. Bitmap pages are journaled with the transaction that changes them.
/// A page freed by transaction F may still be read by snapshots older than F, so it is not handed out again
/// until no reader is older than F (<see cref="ReleaseUpTo"/>); that bookkeeping lives only in memory,
/// because after a restart no reader exists.
/// </summary>
internal sealed unsafe class FreeSpaceMap
{
    public const long FirstBitmapPage = 2;

    private readonly int _pageSize;
    private readonly HashSet<long> _pending = new();
    private readonly Queue<(long TransactionId, long[] Pages)> _pendingByTransaction = new();
    private readonly List<long> _transactionPending = new();
    private long _freeBits;
    private long _transactionFreeBitsDelta;
    private long _hint;

    public FreeSpaceMap(int pageSize)
    {
        _pageSize = pageSize;
        PagesPerSection = (long)(pageSize - PageHeader.Size) * 8;
    }

    /// <summary>Pages covered by one bitmap page.</summary>
    public long PagesPerSection { get; }

    /// <summary>Longest contiguous run (overflow value) the file can hold: a section less its bitmap page.</summary>
    public static long MaxRunPages(int pageSize) => (long)(pageSize - PageHeader.Size) * 8 - 1;

    /// <summary>Free pages (committed plus this transaction's changes), reusable or not.</summary>
    public long FreePages => _freeBits + _transactionFreeBitsDelta;

    /// <summary>Free pages that some reader may still see.</summary>
    public long PendingPages => _pending.Count;

    public long BitmapPageOf(long section) => section == 0 ? FirstBitmapPage : section * PagesPerSection;

    public bool IsBitmapPage(long pageNumber) =>
        pageNumber == FirstBitmapPage || (pageNumber > 0 && pageNumber % PagesPerSection == 0);

    /// <summary>Lays out a new data file: headers at pages 0 and 1, the first bitmap at page 2. Returns the page count.</summary>
    public long InitializeNew(IBitmapPageAccess io)
    {
        io.WriteBitmap(FirstBitmapPage, create: true);
        return FirstBitmapPage + 1;
    }

    /// <summary>Counts the free pages of an existing file.</summary>
    public void Load(IBitmapPageAccess io, long pageCount)
    {
        _freeBits = 0;
        for (long section = 0; section * PagesPerSection < pageCount; section++)
        {
            ulong* words = Words(io.ReadBitmap(BitmapPageOf(section)));
            for (int w = 0; w < WordsPerPage; w++) _freeBits += BitOperations.PopCount(words[w]);
        }
    }

    private int WordsPerPage => (_pageSize - PageHeader.Size) / 8;

    private static ulong* Words(byte* bitmap) => (ulong*)(bitmap + PageHeader.Size);

    /// <summary>
    /// Finds <paramref name="count"/> contiguous free pages that no reader can see, or takes them from the end
    /// of the file (raising <paramref name="pageCount"/>).
    /// </summary>
    public long Allocate(int count, IBitmapPageAccess io, ref long pageCount)
    {
        if (FreePages - _pending.Count >= count)
        {
            long found = FindRun(count, io, pageCount, _hint, pageCount);
            if (found < 0 && _hint > 0) found = FindRun(count, io, pageCount, 0, Math.Min(pageCount, _hint + count));
            if (found >= 0)
            {
                SetBits(io, found, count, free: false);
                _transactionFreeBitsDelta -= count;
                _hint = found + count;
                return found;
            }
        }
        return Extend(count, io, ref pageCount);
    }

    private long Extend(int count, IBitmapPageAccess io, ref long pageCount)
    {
        // A longer run would cover a bitmap page wherever it started; the search below would never end.
        if (count > PagesPerSection - 1)
            throw new ArgumentOutOfRangeException(nameof(count), count, $"A run of contiguous pages is at most {PagesPerSection - 1} pages long.");
        long first = pageCount;
        while (true)
        {
            // A run must not cover a section's bitmap page; create that page and start after it.
            long nextSection = (first + PagesPerSection - 1) / PagesPerSection;
            long bitmap = nextSection * PagesPerSection;
            if (bitmap >= first + count) break;
            if (bitmap >= pageCount) io.WriteBitmap(bitmap, create: true);
            first = bitmap + 1;
        }
        pageCount = first + count;
        return first;
    }

    private long FindRun(int count, IBitmapPageAccess io, long pageCount, long from, long to)
    {
        long runStart = -1;
        int runLength = 0;
        long page = from;
        while (page < to)
        {
            long section = page / PagesPerSection;
            ulong* words = Words(io.ReadBitmap(BitmapPageOf(section)));
            long sectionStart = section * PagesPerSection;
            long sectionEnd = Math.Min(sectionStart + PagesPerSection, to);
            while (page < sectionEnd)
            {
                long bit = page - sectionStart;
                ulong word = words[bit >> 6] >> (int)(bit & 63);
                if (word == 0 && runLength == 0)
                {
                    page += 64 - (bit & 63); // nothing free in the rest of this word
                    continue;
                }
                if ((word & 1) != 0 && !_pending.Contains(page))
                {
                    if (runLength == 0) runStart = page;
                    if (++runLength == count) return runStart;
                }
                else
                {
                    runLength = 0;
                }
                page++;
            }
        }
        return -1;
    }

    /// <summary>
    /// Marks pages free. Pages that were never visible to a reader (allocated by this same transaction) are
    /// reusable at once; the others wait for the readers that may see them.
    /// </summary>
    public void Free(long first, int count, bool reusableNow, IBitmapPageAccess io)
    {
        SetBits(io, first, count, free: true);
        _transactionFreeBitsDelta += count;
        if (reusableNow) return;
        for (long p = first; p < first + count; p++)
        {
            _pending.Add(p);
            _transactionPending.Add(p);
        }
    }

    private void SetBits(IBitmapPageAccess io, long first, int count, bool free)
    {
        long page = first;
        long end = first + count;
        while (page < end)
        {
            long section = page / PagesPerSection;
            ulong* words = Words(io.WriteBitmap(BitmapPageOf(section), create: false));
            long sectionEnd = Math.Min((section + 1) * PagesPerSection, end);
            for (; page < sectionEnd; page++)
            {
                long bit = page - section * PagesPerSection;
                ulong mask = 1UL << (int)(bit & 63);
                if (free) words[bit >> 6] |= mask;
                else words[bit >> 6] &= ~mask;
            }
        }
    }

    /// <summary>True when the page's bit says free (as this transaction sees it).</summary>
    public bool IsFree(IBitmapPageAccess io, long page)
    {
        long section = page / PagesPerSection;
        long bit = page - section * PagesPerSection;
        return (Words(io.ReadBitmap(BitmapPageOf(section)))[bit >> 6] & (1UL << (int)(bit & 63))) != 0;
    }

    /// <summary>The writing transaction committed as <paramref name="transactionId"/>.</summary>
    public void Commit(long transactionId)
    {
        if (_transactionPending.Count > 0)
        {
            _pendingByTransaction.Enqueue((transactionId, _transactionPending.ToArray()));
            _transactionPending.Clear();
        }
        _freeBits += _transactionFreeBitsDelta;
        _transactionFreeBitsDelta = 0;
    }

    /// <summary>The writing transaction was abandoned: its bitmap pages are discarded by the caller.</summary>
    public void Abort()
    {
        foreach (long p in _transactionPending) _pending.Remove(p);
        _transactionPending.Clear();
        _transactionFreeBitsDelta = 0;
        _hint = 0;
    }

    /// <summary>Pages freed by transactions up to <paramref name="oldestReader"/> become reusable.</summary>
    public void ReleaseUpTo(long oldestReader)
    {
        while (_pendingByTransaction.Count > 0 && _pendingByTransaction.Peek().TransactionId <= oldestReader)
        {
            foreach (long p in _pendingByTransaction.Dequeue().Pages) _pending.Remove(p);
        }
    }
}
