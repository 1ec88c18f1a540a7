using System.Runtime.InteropServices;
using System.Numerics;
using StorageEngine.Common;
using StorageEngine.Platform;

namespace StorageEngine.Transactions;

/// <summary>
/// Buffers for the writer's dirty pages and overflow runs, reused across transactions so that a commit neither
/// allocates native memory nor faults in fresh pages. Runs of up to <see cref="MaxPooledRunPages"/> pages are
/// pooled: single pages up to the bytes given to the constructor, since a checkpoint hands back about as many
/// as commits made since the last one, and a buffer freed and allocated again is an object the garbage
/// collector must promote (it lives until a checkpoint) plus a native allocation; longer runs up to
/// <see cref="MaxPooledBytesPerLength"/> each length. Only the writer uses it (under the write lock).
/// A rented buffer holds whatever its last user left: the renter clears what it does not overwrite.
/// </summary>
/// <remarks>
/// No buffer is freed while the environment is open, only in <see cref="Dispose"/>. An application may keep a
/// value's <see cref="ReadOnlySpan{T}"/> past the end of its transaction (a misuse, but one reachable from safe
/// C#), and such a span can point into a buffer of this pool: into a page not yet checkpointed, or a write
/// transaction's dirty page. Had the buffer been freed, the allocator could have given its memory back to the
/// OS and the read would crash the process. A buffer beyond what the pool keeps ready is parked instead: kept
/// allocated, its physical memory given back on Linux (madvise(MADV_DONTNEED): the range stays mapped and reads
/// as zeros), and rented again before anything new is allocated. A stale span therefore reads stale, reused or
/// zero bytes, never unmapped memory. Memory stays bounded: resident memory by the pool's limits on Linux, and
/// address space by the most buffers of each size class ever in use at once (on other systems parked buffers
/// stay resident, so the bound there is that peak). Runs longer than <see cref="MaxPooledRunPages"/> are
/// allocated with a power-of-two page count, so that parked ones serve later runs of any length in their class.
/// </remarks>
internal sealed unsafe class PageBufferPool : IDisposable
{
    /// <summary>The longest run pooled ready for use; longer overflow values are rare enough to be only parked.</summary>
    public const int MaxPooledRunPages = 16;

    /// <summary>How much memory idle buffers of one run length above one page may hold.</summary>
    public const int MaxPooledBytesPerLength = 16 << 20;

    private readonly Stack<NativeBuffer>[] _free = new Stack<NativeBuffer>[MaxPooledRunPages + 1];
    // Parked buffers (see the remarks) by capacity in pages: runs up to MaxPooledRunPages by their exact length,
    // longer ones by their power-of-two class.
    private readonly Dictionary<int, Stack<NativeBuffer>> _parked = new();
    private readonly int _pageSize;
    private readonly int _maxSinglePages;
    private bool _disposed;
    // Single-page buffers are carved from slabs: an aligned allocation of its own costs a page-aligned buffer two
    // pages of address space (the allocator's header takes the page before it), and the header's page stays
    // resident when the buffer's own is given back, so parked single pages still held half their memory.
    private readonly List<IntPtr> _slabs = new();
    private byte* _slabNext;
    private int _slabPagesLeft;
    // The buffers one ParkIdle call parks, reused.
    private readonly List<NativeBuffer> _idleBatch = new();

    /// <param name="pageSize">Bytes per page.</param>
    /// <param name="maxSinglePageBytes">How much memory idle single-page buffers may hold (at least <see cref="MaxPooledBytesPerLength"/>).</param>
    public PageBufferPool(int pageSize, long maxSinglePageBytes = MaxPooledBytesPerLength)
    {
        _pageSize = pageSize;
        _maxSinglePages = (int)Math.Min(int.MaxValue, Math.Max(maxSinglePageBytes, MaxPooledBytesPerLength) / pageSize);
        for (int pages = 1; pages <= MaxPooledRunPages; pages++) _free[pages] = new Stack<NativeBuffer>();
    }

    /// <summary>Buffers parked (kept allocated with their memory given back), for tests.</summary>
    internal int ParkedCount
    {
        get
        {
            int count = 0;
            foreach (var stack in _parked.Values) count += stack.Count;
            return count;
        }
    }

    /// <summary>A buffer of one page, contents unspecified.</summary>
    public NativeBuffer Rent() => Rent(1);

    /// <summary>A buffer of <paramref name="pageCount"/> consecutive pages, contents unspecified.</summary>
    public NativeBuffer Rent(int pageCount)
    {
        if (pageCount <= MaxPooledRunPages && _free[pageCount].TryPop(out var ready)) return ready;
        int capacityPages = CapacityPages(pageCount);
        int length = checked(pageCount * _pageSize);
        if (_parked.TryGetValue(capacityPages, out var parked) && parked.TryPop(out var buffer))
        {
            buffer.Resize(length);
            return buffer;
        }
        if (pageCount == 1) return CarveSinglePage();
        return new NativeBuffer(length, (int)Math.Min((long)capacityPages * _pageSize, int.MaxValue), clear: false);
    }

    /// <summary>Bytes of one slab of single-page buffers (a whole number of pages, at least one).</summary>
    private int SlabBytes => Math.Max(SlabTargetBytes / _pageSize, 1) * _pageSize;

    private const int SlabTargetBytes = 2 << 20;

    /// <summary>A new single-page buffer from the current slab (a new slab when it is used up), faulted in.</summary>
    private NativeBuffer CarveSinglePage()
    {
        if (_slabPagesLeft == 0)
        {
            int bytes = SlabBytes;
            _slabNext = (byte*)NativeMemory.AlignedAlloc((nuint)bytes, NativeBuffer.Alignment);
            _slabs.Add((IntPtr)_slabNext);
            _slabPagesLeft = bytes / _pageSize;
        }
        var buffer = NativeBuffer.Borrowed(_slabNext, _pageSize);
        // Faulted in by a write, as NativeBuffer does for fresh memory (a first read would map the zero page).
        for (int offset = 0; offset < _pageSize; offset += NativeBuffer.Alignment) _slabNext[offset] = 0;
        _slabNext += _pageSize;
        _slabPagesLeft--;
        return buffer;
    }

    public void Return(NativeBuffer buffer)
    {
        if (_disposed)
        {
            buffer.Free();
            return;
        }
        int pages = buffer.Length / _pageSize;
        if (buffer.Length % _pageSize == 0 && buffer.Capacity == buffer.Length && pages is >= 1 and <= MaxPooledRunPages
            && _free[pages].Count < (pages == 1 ? _maxSinglePages : MaxPooledBytesPerLength / buffer.Length))
        {
            _free[pages].Push(buffer);
            return;
        }
        Park(buffer);
    }

    /// <summary>Keeps the buffer allocated for a later run of its class, its physical memory given back where the OS allows.</summary>
    private unsafe void Park(NativeBuffer buffer)
    {
        if (OperatingSystem.IsLinux()) DiscardWholePages(buffer.Pointer, buffer.Pointer + buffer.Capacity);
        ParkedStackFor(buffer).Push(buffer);
    }

    private Stack<NativeBuffer> ParkedStackFor(NativeBuffer buffer)
    {
        int capacityPages = buffer.Capacity / _pageSize;
        if (!_parked.TryGetValue(capacityPages, out var stack)) _parked[capacityPages] = stack = new Stack<NativeBuffer>();
        return stack;
    }

    /// <summary>Gives the OS pages inside [start, end) back (Linux): the range stays mapped and reads as zeros.</summary>
    private static unsafe void DiscardWholePages(byte* start, byte* end)
    {
        // madvise needs whole OS pages; a page size above the buffers' alignment gives back what it covers.
        long osPage = System.Environment.SystemPageSize;
        long first = ((long)start + osPage - 1) & ~(osPage - 1);
        long last = (long)end & ~(osPage - 1);
        if (last > first) LinuxNative.DiscardPages((byte*)first, last - first);
    }

    /// <summary>
    /// Parks every buffer kept ready: an environment closed while readers are still registered keeps its pool
    /// allocated for them (stale spans may point into it) but needs none of its memory.
    /// </summary>
    public void ParkAll() => ParkIdle(keepBytes: 0, maxBuffers: int.MaxValue);

    /// <summary>Bytes held by buffers kept ready (not parked).</summary>
    internal long ReadyBytes
    {
        get
        {
            long bytes = 0;
            for (int pages = 1; pages <= MaxPooledRunPages; pages++) bytes += (long)_free[pages].Count * pages * _pageSize;
            return bytes;
        }
    }

    /// <summary>
    /// Parks up to <paramref name="maxBuffers"/> of the buffers kept ready beyond <paramref name="keepBytes"/>,
    /// longest runs first: once commits have paused, the memory a burst of them left in the pool goes back to the
    /// OS (on Linux) for the page cache to use. Returns true when buffers beyond the floor remain ready.
    /// </summary>
    public bool ParkIdle(long keepBytes, int maxBuffers)
    {
        var batch = _idleBatch;
        batch.Clear();
        bool more = false;
        long ready = ReadyBytes;
        for (int pages = MaxPooledRunPages; pages >= 1 && ready > keepBytes && !more; pages--)
        {
            while (ready > keepBytes && _free[pages].TryPop(out var buffer))
            {
                if (batch.Count == maxBuffers)
                {
                    _free[pages].Push(buffer);
                    more = true;
                    break;
                }
                batch.Add(buffer);
                ready -= (long)pages * _pageSize;
            }
        }
        // In address order, so that neighbours from one slab are given back by one madvise: a call per buffer
        // (tens of thousands after a burst) interrupted every core running the process to flush its TLB each time,
        // and readers running beside the release lost a quarter of their rate.
        if (OperatingSystem.IsLinux())
        {
            batch.Sort(static (a, b) => ((long)a.Pointer).CompareTo((long)b.Pointer));
            for (int i = 0; i < batch.Count;)
            {
                byte* start = batch[i].Pointer;
                byte* end = start + batch[i].Capacity;
                for (i++; i < batch.Count && batch[i].Pointer == end; i++) end += batch[i].Capacity;
                DiscardWholePages(start, end);
            }
        }
        foreach (var buffer in batch) ParkedStackFor(buffer).Push(buffer);
        batch.Clear();
        return more;
    }

    /// <summary>The capacity, in pages, of a buffer for a run of <paramref name="pageCount"/> pages.</summary>
    private int CapacityPages(int pageCount)
    {
        if (pageCount <= MaxPooledRunPages) return pageCount;
        long rounded = (long)BitOperations.RoundUpToPowerOf2((uint)pageCount);
        // A class that would not fit in an int of bytes keeps the exact length.
        return rounded * _pageSize <= int.MaxValue ? (int)rounded : pageCount;
    }

    /// <summary>Frees every buffer; buffers returned afterwards are freed at once.</summary>
    public void Dispose()
    {
        _disposed = true;
        for (int pages = 1; pages <= MaxPooledRunPages; pages++)
            while (_free[pages].TryPop(out var buffer)) buffer.Free();
        foreach (var stack in _parked.Values)
            while (stack.TryPop(out var buffer)) buffer.Free();
        // Buffers carved from the slabs and still out (held pages of a closed environment) free nothing themselves.
        foreach (var slab in _slabs) NativeMemory.AlignedFree((void*)slab);
        _slabs.Clear();
        _slabPagesLeft = 0;
    }
}
