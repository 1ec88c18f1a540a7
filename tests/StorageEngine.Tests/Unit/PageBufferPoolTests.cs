using StorageEngine.Common;
using StorageEngine.Transactions;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// The writer's page buffers are reused: single pages up to the bytes the environment gives the pool (what one
/// checkpoint interval's commits hold), runs of up to 16 pages up to 16 MiB each length. Anything else is parked,
/// not freed, while the pool lives (a stale span may still point into it), and rented again before anything new.
/// </summary>
public sealed class PageBufferPoolTests
{
    private const int PageSize = 4096;

    [Fact]
    public void Single_pages_are_kept_up_to_the_configured_bytes_and_the_rest_parked()
    {
        const long Limit = 32L << 20;
        using var pool = new PageBufferPool(PageSize, Limit);
        int capacity = (int)(Limit / PageSize);
        var rented = Enumerable.Range(0, capacity + 100).Select(_ => pool.Rent()).ToList();
        foreach (var buffer in rented) pool.Return(buffer);

        var kept = rented.Take(capacity).ToHashSet();
        var again = Enumerable.Range(0, capacity).Select(_ => pool.Rent()).ToList();
        Assert.All(again, buffer => Assert.Contains(buffer, kept));
        var parked = rented.Skip(capacity).ToHashSet();
        Assert.Equal(parked.Count, pool.ParkedCount);
        Assert.All(parked, buffer => Assert.Equal(PageSize, buffer.GetSpan().Length));
        var fresh = pool.Rent();
        Assert.Contains(fresh, parked);
        foreach (var buffer in again.Append(fresh)) pool.Return(buffer);
    }

    [Fact]
    public void A_limit_below_sixteen_mebibytes_still_keeps_sixteen()
    {
        using var pool = new PageBufferPool(PageSize, maxSinglePageBytes: 64 << 10);
        var rented = Enumerable.Range(0, 1000).Select(_ => pool.Rent()).ToList();
        foreach (var buffer in rented) pool.Return(buffer);
        Assert.All(rented, buffer => Assert.Equal(PageSize, buffer.GetSpan().Length));
    }

    [Fact]
    public void Runs_are_kept_by_sixteen_mebibytes_per_length_and_the_rest_and_longer_runs_parked()
    {
        using var pool = new PageBufferPool(PageSize, 256L << 20);
        int perLength = PageBufferPool.MaxPooledBytesPerLength / (4 * PageSize);
        var runs = Enumerable.Range(0, perLength + 1).Select(_ => pool.Rent(4)).ToList();
        var longRun = pool.Rent(PageBufferPool.MaxPooledRunPages + 1);
        foreach (var buffer in runs) pool.Return(buffer);
        pool.Return(longRun);

        Assert.Equal(2, pool.ParkedCount);
        Assert.Equal(4 * PageSize, runs[^1].GetSpan().Length);
        Assert.Equal(4 * PageSize, runs[0].GetSpan().Length);
        // A long run is allocated with a power-of-two page count and serves any later run of that class.
        Assert.Equal(2 * PageBufferPool.MaxPooledRunPages * PageSize, longRun.Capacity);
        Assert.Same(longRun, pool.Rent(2 * PageBufferPool.MaxPooledRunPages));
        Assert.Equal(2 * PageBufferPool.MaxPooledRunPages * PageSize, longRun.GetSpan().Length);
    }

    [Fact]
    public void Dispose_frees_every_buffer_and_later_returns_are_freed_at_once()
    {
        var pool = new PageBufferPool(PageSize);
        var kept = pool.Rent();
        var longRun = pool.Rent(100);
        var late = pool.Rent();
        pool.Return(kept);
        pool.Return(longRun);
        pool.Dispose();
        pool.Return(late);

        Assert.Throws<ObjectDisposedException>(() => kept.GetSpan());
        Assert.Throws<ObjectDisposedException>(() => longRun.GetSpan());
        Assert.Throws<ObjectDisposedException>(() => late.GetSpan());
    }
}
