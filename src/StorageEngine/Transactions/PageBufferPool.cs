using StorageEngine.Common;

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
internal sealed class PageBufferPool : IDisposable
{
    /// <summary>The longest run pooled; longer overflow values are rare enough to allocate each time.</summary>
    public const int MaxPooledRunPages = 16;

    /// <summary>How much memory idle buffers of one run length above one page may hold.</summary>
    public const int MaxPooledBytesPerLength = 16 << 20;

    private readonly Stack<NativeBuffer>[] _free = new Stack<NativeBuffer>[MaxPooledRunPages + 1];
    private readonly int _pageSize;
    private readonly int _maxSinglePages;

    /// <param name="pageSize">Bytes per page.</param>
    /// <param name="maxSinglePageBytes">How much memory idle single-page buffers may hold (at least <see cref="MaxPooledBytesPerLength"/>).</param>
    public PageBufferPool(int pageSize, long maxSinglePageBytes = MaxPooledBytesPerLength)
    {
        _pageSize = pageSize;
        _maxSinglePages = (int)Math.Min(int.MaxValue, Math.Max(maxSinglePageBytes, MaxPooledBytesPerLength) / pageSize);
        for (int pages = 1; pages <= MaxPooledRunPages; pages++) _free[pages] = new Stack<NativeBuffer>();
    }

    /// <summary>A buffer of one page, contents unspecified.</summary>
    public NativeBuffer Rent() => Rent(1);

    /// <summary>A buffer of <paramref name="pageCount"/> consecutive pages, contents unspecified.</summary>
    public NativeBuffer Rent(int pageCount) =>
        pageCount <= MaxPooledRunPages && _free[pageCount].TryPop(out var buffer)
            ? buffer
            : new NativeBuffer(checked(pageCount * _pageSize), clear: false);

    public void Return(NativeBuffer buffer)
    {
        int pages = buffer.Length / _pageSize;
        if (buffer.Length % _pageSize == 0 && pages is >= 1 and <= MaxPooledRunPages
            && _free[pages].Count < (pages == 1 ? _maxSinglePages : MaxPooledBytesPerLength / buffer.Length))
            _free[pages].Push(buffer);
        else
            buffer.Free();
    }

    public void Dispose()
    {
        for (int pages = 1; pages <= MaxPooledRunPages; pages++)
            while (_free[pages].TryPop(out var buffer)) buffer.Free();
    }
}
