using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace StorageEngine.Paging;

/// <summary>
/// Which pages are free. The data file is cut into sections; each section starts with its bitmap, a few
/// consecutive pages (from page 2 in the first section, which begins with the two header pages) holding one
/// bit per page of the section, 1 meaning free. A bitmap has enough pages that a section can hold the
/// largest overflow value as one contiguous run. Bitmap pages are journaled with the transaction that
/// changes them.
/// A page freed by transaction F may still be read by snapshots older than F, so it is not handed out again
/// until no reader is older than F (<see cref="ReleaseUpTo"/>); that bookkeeping lives only in memory,
/// because after a restart no reader exists. With a journal the owner also holds a freed page back until a
/// checkpoint covers F, except a young one (<see cref="ReleaseYoung"/>).
/// </summary>
internal sealed unsafe class FreeSpaceMap
{
    public const long FirstBitmapPage = 2;

    private readonly int _pageSize;
    private readonly FreedPages _held = new();
    // Made once: the releases hand each page to it, and a lambda per call would allocate per writer.
    private readonly Action<long> _becameReusable;
    private long _freeBits;
    // The committed transaction whose bitmaps _freeBits counts, or -1 when unknown (see CommittedFreePages).
    private long _countedAt = -1;
    private long _transactionFreeBitsDelta;
    private long _hint;
    // The shortest run a full search failed to find; no run that long or longer exists until pages become
    // reusable again. Spares a search of the whole file per allocation when, as under a bulk load of large
    // values, only scattered single pages are free.
    private long _shortestMissingRun = long.MaxValue;
    // One bit per bitmap word (64 pages), clear only where a search found none of the word's pages reusable and
    // none became reusable since: the search skips such words unread. Without it a search from the hint went
    // through hundreds of words of pages in use or freed but held back, a tenth of a 1-put update's time on a
    // tree of 200,000 values. Words past the array count as set.
    private ulong[] _reusableWords = [];

    /// <summary>The longest contiguous run a section must be able to hold (the largest overflow value).</summary>
    public const long MaxRunBytes = 1L << 30;

    public FreeSpaceMap(int pageSize)
    {
        _becameReusable = page => BecameReusable(page, 1);
        _pageSize = pageSize;
        BitmapPagesPerSection = BitmapPagesFor(pageSize);
        PagesPerSection = BitsPerPage(pageSize) * BitmapPagesPerSection;
    }

    private static long BitsPerPage(int pageSize) => (long)(pageSize - PageHeader.Size) * 8;

    private static int BitmapPagesFor(int pageSize)
    {
        long needed = MaxRunBytes / pageSize + 64;
        return (int)((needed + BitsPerPage(pageSize) - 1) / BitsPerPage(pageSize));
    }

    /// <summary>Pages covered by one section's bitmap.</summary>
    public long PagesPerSection { get; }

    /// <summary>Consecutive pages of one section's bitmap.</summary>
    public int BitmapPagesPerSection { get; }

    /// <summary>Longest contiguous run (overflow value) the file can hold: a section less its bitmap.</summary>
    public static long MaxRunPages(int pageSize) => BitsPerPage(pageSize) * BitmapPagesFor(pageSize) - BitmapPagesFor(pageSize);

    /// <summary>Pages of a new, empty data file: the two headers and the first section's bitmap.</summary>
    public static long InitialPageCount(int pageSize) => FirstBitmapPage + BitmapPagesFor(pageSize);

    /// <summary>Free pages (committed plus this transaction's changes), reusable or not.</summary>
    public long FreePages => _freeBits + _transactionFreeBitsDelta;

    public long BitmapPageOf(long section) => section == 0 ? FirstBitmapPage : section * PagesPerSection;


    /// <summary>
    /// The free pages of committed transaction <paramref name="transactionId"/>, as a clean close records them (see
    /// <see cref="DataFileHeaderTrailer"/>); -1 when the map does not know that transaction's count, or a transaction
    /// is changing it. The caller makes sure no writer runs.
    /// </summary>
    public long CommittedFreePages(long transactionId) =>
        _countedAt == transactionId && _transactionFreeBitsDelta == 0 ? _freeBits : -1;

    /// <summary>
    /// Starts from <paramref name="freePages"/>, the count a clean close recorded for the bitmaps of transaction
    /// <paramref name="transactionId"/>, instead of counting them (<see cref="Load"/>): the bitmap pages are then
    /// read, and checksum-verified, only when a search or a change first needs them.
    /// </summary>
    public void Assume(long freePages, long transactionId)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(freePages);
        _freeBits = freePages;
        _transactionFreeBitsDelta = 0;
        _shortestMissingRun = long.MaxValue;
        SetAllBits(_reusableWords);
        _countedAt = transactionId;
    }

    /// <summary>Counts the free pages of an existing file, whose bitmaps are those of committed transaction <paramref name="transactionId"/>.</summary>
    public void Load(IBitmapPageAccess io, long pageCount, long transactionId)
    {
        _countedAt = -1;
        _freeBits = 0;
        _shortestMissingRun = long.MaxValue;
        SetAllBits(_reusableWords);
        // Counted in locals: a sum kept in the field was stored back for each of a section's 4,500 words (the
        // pointer may alias it), and the word count re-read each time.
        int wordsPerPage = WordsPerPage;
        long free = 0;
        for (long section = 0; section * PagesPerSection < pageCount; section++)
        {
            for (int j = 0; j < BitmapPagesPerSection; j++)
            {
                ulong* words = Words(io.ReadBitmap(BitmapPageOf(section) + j));
                free += CountSet(words, wordsPerPage);
            }
        }
        _freeBits = free;
        _countedAt = transactionId;
    }

    /// <summary>Set bits in <paramref name="count"/> words, four at a time into separate sums.</summary>
    private static long CountSet(ulong* words, int count)
    {
        long a = 0, b = 0, c = 0, d = 0;
        int w = 0;
        for (; w + 4 <= count; w += 4)
        {
            a += BitOperations.PopCount(words[w]);
            b += BitOperations.PopCount(words[w + 1]);
            c += BitOperations.PopCount(words[w + 2]);
            d += BitOperations.PopCount(words[w + 3]);
        }
        for (; w < count; w++) a += BitOperations.PopCount(words[w]);
        return a + b + c + d;
    }

    /// <summary>
    /// The first page at or past <paramref name="pageCount"/> (up to the end of its section) that its bitmap marks
    /// free, or -1. Pages past the end are never freed, so such a bit comes from a transaction the state does not
    /// hold; the allocator would hand the page out twice.
    /// </summary>
    public long FirstFreePast(IBitmapPageAccess io, long pageCount, out long bitmapPage)
    {
        long sectionEnd = (pageCount + PagesPerSection - 1) / PagesPerSection * PagesPerSection;
        long bitsPerPage = WordsPerPage * 64L;
        for (long page = pageCount; page < sectionEnd;)
        {
            ulong* words = WordsOf(io, page, write: false, out long bit);
            long end = Math.Min(page - bit + bitsPerPage, sectionEnd);
            // The rest of a small file's section is hundreds of thousands of bits, all clear: whole words are
            // skipped by a vectorized search, the partial words at either end taken a word at a time.
            while (page < end)
            {
                if ((bit & 63) == 0 && end - page >= 64)
                {
                    int count = (int)((end - page) >> 6);
                    // Searched as bytes, not as ulongs: the runtime ships the byte search precompiled, while the ulong
                    // one was compiled at the first open (10 ms) and then ran unoptimized for hundreds of opens, each
                    // taking 0.2-0.3 ms instead of 0.1 (2026-11-28, .NET 10.0.12).
                    int foundByte = new ReadOnlySpan<byte>(words + (bit >> 6), count * sizeof(ulong)).IndexOfAnyExcept((byte)0);
                    int found = foundByte < 0 ? -1 : foundByte / sizeof(ulong);
                    long skipped = 64L * (found < 0 ? count : found);
                    page += skipped;
                    bit += skipped;
                    if (found < 0) continue;
                }
                int available = (int)Math.Min(64 - (bit & 63), end - page);
                ulong rest = words[bit >> 6] >> (int)(bit & 63);
                if (available < 64) rest &= (1UL << available) - 1;
                if (rest == 0)
                {
                    page += available;
                    bit += available;
                    continue;
                }
                page += BitOperations.TrailingZeroCount(rest);
                long section = page / PagesPerSection;
                bitmapPage = BitmapPageOf(section) + (page - section * PagesPerSection) / bitsPerPage;
                return page;
            }
        }
        bitmapPage = -1;
        return -1;
    }

    /// <summary>The bitmap words holding the bit of <paramref name="page"/>, and the bit's index among them.</summary>
    private ulong* WordsOf(IBitmapPageAccess io, long page, bool write, out long bit)
    {
        long section = page / PagesPerSection;
        long index = page - section * PagesPerSection;
        long bitsPerPage = WordsPerPage * 64L;
        long bitmapPage = BitmapPageOf(section) + index / bitsPerPage;
        bit = index % bitsPerPage;
        return Words(write ? io.WriteBitmap(bitmapPage, create: false) : io.ReadBitmap(bitmapPage));
    }

    private int WordsPerPage => (_pageSize - PageHeader.Size) / 8;

    private static ulong* Words(byte* bitmap) => (ulong*)(bitmap + PageHeader.Size);

    /// <summary>
    /// Freed pages waiting for readers (or, for the owner, a checkpoint) at which the file no longer grows
    /// without first asking <see cref="MakeReusable"/>.
    /// </summary>
    public long WaitingLimit { get; set; } = long.MaxValue;

    /// <summary>
    /// Asked before the file grows while <see cref="WaitingLimit"/> freed pages or more wait to become
    /// reusable: it may make some reusable (through <see cref="ReleaseUpTo"/>) and return true, and the search
    /// is tried once more. Without it a writer that outruns what holds those pages back grows the file by the
    /// lag, and the file never shrinks.
    /// </summary>
    public Func<bool>? MakeReusable { get; set; }

    /// <summary>Freed pages that are not reusable yet (a reader may still see them, or this transaction freed them).</summary>
    public long WaitingPages => _held.Count;

    /// <summary>
    /// Finds <paramref name="count"/> contiguous free pages that no reader can see, or takes them from the end
    /// of the file (raising <paramref name="pageCount"/>).
    /// </summary>
    public long Allocate(int count, IBitmapPageAccess io, ref long pageCount)
    {
        long found = Reuse(count, io, pageCount);
        if (found < 0 && _held.Count >= WaitingLimit && MakeReusable is { } makeReusable && makeReusable())
            found = Reuse(count, io, pageCount);
        return found >= 0 ? found : Extend(count, io, ref pageCount);
    }

    /// <summary>A run of <paramref name="count"/> reusable pages inside the file, taken; or -1.</summary>
    private long Reuse(int count, IBitmapPageAccess io, long pageCount)
    {
        if (count >= _shortestMissingRun || FreePages - _held.Count < count) return -1;
        long found = FindRun(count, io, _hint, pageCount);
        if (found < 0 && _hint > 0) found = FindRun(count, io, 0, Math.Min(pageCount, _hint + count));
        if (found < 0)
        {
            _shortestMissingRun = count;
            return -1;
        }
        SetBits(io, found, count, free: false);
        _transactionFreeBitsDelta -= count;
        _hint = found + count;
        return found;
    }

    private long Extend(int count, IBitmapPageAccess io, ref long pageCount)
    {
        // A longer run would cover a bitmap wherever it started; the search below would never end.
        if (count > PagesPerSection - BitmapPagesPerSection)
            throw new ArgumentOutOfRangeException(nameof(count), count, $"A run of contiguous pages is at most {PagesPerSection - BitmapPagesPerSection} pages long.");
        long first = pageCount;
        while (true)
        {
            // A run must not cover a section's bitmap; create that bitmap and start after it.
            long nextSection = (first + PagesPerSection - 1) / PagesPerSection;
            long bitmap = nextSection * PagesPerSection;
            if (first > bitmap - PagesPerSection && first < bitmap - PagesPerSection + BitmapPagesPerSection && nextSection > 1)
            {
                // Inside the previous section's bitmap (only possible right after it was created): skip past it.
                first = bitmap - PagesPerSection + BitmapPagesPerSection;
                continue;
            }
            if (bitmap >= first + count) break;
            if (bitmap >= pageCount)
                for (int j = 0; j < BitmapPagesPerSection; j++) io.WriteBitmap(bitmap + j, create: true);
            // The pages skipped before the bitmap were never used: they are free at once, not leaked.
            if (bitmap > first) Free(first, (int)(bitmap - first), reusableNow: true, io);
            first = bitmap + BitmapPagesPerSection;
        }
        pageCount = first + count;
        return first;
    }

    /// <summary>
    /// The first run of <paramref name="count"/> free pages, none of them pending, lying in [from, to), or -1.
    /// Works a 64-page word at a time: a bitmap word masked by the pending set's word for the same pages (a
    /// bitmap page covers a multiple of 64 pages, so the two line up).
    /// </summary>
    private long FindRun(int count, IBitmapPageAccess io, long from, long to)
    {
        long runStart = -1;
        long runLength = 0;
        long page = from;
        long bitsPerPage = WordsPerPage * 64L;
        while (page < to)
        {
            // One bitmap page at a time: its words cover pages [page - bit, page - bit + bitsPerPage).
            ulong* words = WordsOf(io, page, write: false, out long bit);
            long end = Math.Min(page - bit + bitsPerPage, to);
            while (page < end)
            {
                int shift = (int)(bit & 63);
                if (shift == 0 && WordsWithoutReusable(page >> 6) is var skip and > 0)
                {
                    long skipped = Math.Min((long)skip * 64, end - page);
                    page += skipped;
                    bit += skipped;
                    runLength = 0;
                    continue;
                }
                int valid = (int)Math.Min(64 - shift, end - page);
                ulong free = (words[bit >> 6] & ~_held.Word(page >> 6)) >> shift;
                if (valid < 64) free &= (1UL << valid) - 1;
                else if (free == 0) NoneReusable(page >> 6);
                int at = 0;
                while (at < valid)
                {
                    if (runLength == 0)
                    {
                        ulong rest = free >> at;
                        if (rest == 0) break;
                        at += BitOperations.TrailingZeroCount(rest);
                        runStart = page + at;
                    }
                    // Free pages from `at` on: the trailing ones, cut at the word's valid bits.
                    int ones = Math.Min(BitOperations.TrailingZeroCount(~(free >> at)), valid - at);
                    runLength += ones;
                    at += ones;
                    if (runLength >= count) return runStart;
                    if (at < valid) runLength = 0;
                }
                page += valid;
                bit += valid;
            }
        }
        return -1;
    }

    /// <summary>
    /// Marks pages free. Pages that were never visible to a reader (allocated by this same transaction) are
    /// reusable at once; the others wait for the readers that may see them.
    /// </summary>
    /// <param name="first">The first page of the run.</param>
    /// <param name="count">Pages in the run.</param>
    /// <param name="reusableNow">The run was taken by this same transaction: nothing committed ever held it.</param>
    /// <param name="io">The bitmap pages.</param>
    /// <param name="writtenBy">
    /// For a single page whose committed version is not yet in the data file, the transaction that wrote it
    /// (a lower bound will do); 0 otherwise. Such a page may be released by <see cref="ReleaseYoung"/>.
    /// </param>
    public void Free(long first, int count, bool reusableNow, IBitmapPageAccess io, long writtenBy = 0)
    {
        SetBits(io, first, count, free: true);
        _transactionFreeBitsDelta += count;
        if (reusableNow) BecameReusable(first, count);
        else _held.Hold(first, count, writtenBy);
    }

    private void SetBits(IBitmapPageAccess io, long first, int count, bool free)
    {
        long page = first;
        long end = first + count;
        long bitsPerPage = WordsPerPage * 64L;
        while (page < end)
        {
            ulong* words = WordsOf(io, page, write: true, out long bit);
            long stop = Math.Min(page - bit + bitsPerPage, end);
            for (; page < stop; page++, bit++)
            {
                ulong mask = 1UL << (int)(bit & 63);
                if (free) words[bit >> 6] |= mask;
                else words[bit >> 6] &= ~mask;
            }
        }
    }

    /// <summary>True when the page's bit says free (as this transaction sees it).</summary>
    public bool IsFree(IBitmapPageAccess io, long page)
    {
        ulong* words = WordsOf(io, page, write: false, out long bit);
        return (words[bit >> 6] & (1UL << (int)(bit & 63))) != 0;
    }

    /// <summary>
    /// Sets every page's bit from <paramref name="used"/> (what the trees reach), for recovery after a session
    /// whose bitmaps may be ahead of its trees. Returns how many bits changed.
    /// </summary>
    public long Rebuild(IBitmapPageAccess io, System.Collections.BitArray used, long pageCount)
    {
        long changed = 0;
        _shortestMissingRun = long.MaxValue;
        SetAllBits(_reusableWords);
        // Past the page count every bit must be clear too: a lost transaction may have grown the file and
        // marked pages there free, and the allocator would otherwise hand them out twice.
        long coveredPages = (pageCount + PagesPerSection - 1) / PagesPerSection * PagesPerSection;
        for (long page = 0; page < coveredPages; page++)
        {
            bool free = page < pageCount && !used[(int)page];
            if (IsFree(io, page) == free) continue;
            SetBits(io, page, 1, free);
            _transactionFreeBitsDelta += free ? 1 : -1;
            changed++;
        }
        return changed;
    }

    /// <summary>
    /// The writing transaction committed as <paramref name="transactionId"/>; returns how many pages it freed that
    /// wait for a checkpoint (young ones left out: they usually need none).
    /// </summary>
    public int Commit(long transactionId)
    {
        int freed = _held.Commit(transactionId);
        _freeBits += _transactionFreeBitsDelta;
        _transactionFreeBitsDelta = 0;
        _countedAt = transactionId;
        return freed;
    }

    /// <summary>The writing transaction was abandoned: its bitmap pages are discarded by the caller.</summary>
    public void Abort()
    {
        _held.Abort();
        _transactionFreeBitsDelta = 0;
        _hint = 0;
        _shortestMissingRun = long.MaxValue;
        // The pages it took are free again, in words a search during it may have marked as holding none.
        SetAllBits(_reusableWords);
    }

    /// <summary>False (for tests) makes young pages wait for a checkpoint like the others.</summary>
    internal bool ReleasesYoungPages { get; set; } = true;

    /// <summary>
    /// Releases young pages (see <see cref="Free"/>) freed by transactions up to <paramref name="oldestVisible"/>,
    /// which no reader can see any more. One written after <paramref name="checkpointStarted"/>, the snapshot of
    /// the last checkpoint to begin, becomes reusable at once: no checkpointed state holds it, so neither recovery
    /// nor a reader can need what the data file has there (recovery rebuilds it from its own record before any
    /// diff uses it as a base), and a checkpoint that begins later covers its release. One written earlier may be
    /// live in that checkpoint's state and joins the others waiting for a checkpoint (<see cref="ReleaseUpTo"/>).
    /// The caller must make sure no checkpoint begins between its reading <paramref name="checkpointStarted"/>
    /// and this call's end.
    /// </summary>
    public void ReleaseYoung(long oldestVisible, long checkpointStarted) =>
        _held.ReleaseYoung(oldestVisible, checkpointStarted, ReleasesYoungPages, _becameReusable);

    /// <summary>Pages freed by transactions up to <paramref name="oldestReader"/> become reusable.</summary>
    public void ReleaseUpTo(long oldestReader) => _held.ReleaseUpTo(oldestReader, _becameReusable);

    /// <summary>
    /// Notes that the <paramref name="count"/> pages from <paramref name="first"/> may be allocated again, in the
    /// summary too. The next search starts no later than them: the pages small commits free are reused at the next
    /// writer's start, and a search from past them went through the rest of the file first (a twentieth of a 1-put
    /// commit's time on a file of a few thousand pages).
    /// </summary>
    private void BecameReusable(long first, int count)
    {
        if (first < _hint) _hint = first;
        _shortestMissingRun = long.MaxValue;
        for (long word = first >> 6; word <= (first + count - 1) >> 6; word++)
        {
            if ((word >> 6) < _reusableWords.Length) _reusableWords[word >> 6] |= 1UL << (int)(word & 63);
        }
    }

    /// <summary>The search found none of the pages of bitmap word <paramref name="word"/> reusable.</summary>
    private void NoneReusable(long word)
    {
        if ((word >> 6) >= _reusableWords.Length)
        {
            // Grown with every new word set: nothing has been learned about them yet.
            long length = Math.Max((word >> 6) + 1, _reusableWords.Length * 2L);
            int old = _reusableWords.Length;
            Array.Resize(ref _reusableWords, (int)length);
            SetAllBits(_reusableWords.AsSpan(old));
        }
        _reusableWords[word >> 6] &= ~(1UL << (int)(word & 63));
    }

    /// <summary>
    /// How many whole bitmap words from <paramref name="word"/> on hold no reusable page, up to the end of the
    /// summary word that holds it.
    /// </summary>
    private int WordsWithoutReusable(long word)
    {
        if ((word >> 6) >= _reusableWords.Length) return 0;
        ulong rest = _reusableWords[word >> 6] >> (int)(word & 63);
        return rest == 0 ? 64 - (int)(word & 63) : BitOperations.TrailingZeroCount(rest);
    }

    /// <remarks>
    /// A block initialization (memset) rather than Span.Fill, whose vector code the runtime compiled in every process's
    /// first open on AVX-512 machines (its precompiled code assumes narrower vectors).
    /// </remarks>
    private static void SetAllBits(Span<ulong> words) =>
        Unsafe.InitBlockUnaligned(ref MemoryMarshal.GetReference(MemoryMarshal.AsBytes(words)), 0xFF, (uint)words.Length * sizeof(ulong));
}
