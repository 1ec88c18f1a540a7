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

    [Fact]
    public void Idle_parking_keeps_the_floor_ready_and_parks_the_rest_longest_runs_first()
    {
        using var pool = new PageBufferPool(PageSize, 64L << 20);
        var singles = Enumerable.Range(0, 2000).Select(_ => pool.Rent()).ToList();
        var runs = Enumerable.Range(0, 10).Select(_ => pool.Rent(8)).ToList();
        foreach (var buffer in singles.Concat(runs)) pool.Return(buffer);
        long floor = 1 << 20;

        // A bounded batch per call: true while more than the floor is ready.
        Assert.True(pool.ParkIdle(floor, maxBuffers: 10));
        Assert.Equal(10, pool.ParkedCount);
        Assert.Equal(2000L * PageSize, pool.ReadyBytes);
        while (pool.ParkIdle(floor, maxBuffers: 100)) { }
        Assert.InRange(pool.ReadyBytes, floor - PageSize, floor);
        // Parked buffers serve later rents before anything new is allocated.
        var again = Enumerable.Range(0, 2000).Select(_ => pool.Rent()).ToList();
        Assert.All(again, buffer => Assert.Contains(buffer, singles));
        foreach (var buffer in again) pool.Return(buffer);
    }

    [StorageEngine.Tests.Platform.LinuxX64Fact]
    public unsafe void Single_pages_come_from_slabs_so_parking_them_gives_back_every_page_they_used()
    {
        using var pool = new PageBufferPool(PageSize, 64L << 20);
        var buffers = Enumerable.Range(0, 256).Select(_ => pool.Rent()).ToList();
        foreach (var buffer in buffers) buffer.GetSpan().Fill(0xA5);
        long low = buffers.Min(b => (long)b.Pointer), high = buffers.Max(b => (long)b.Pointer) + PageSize;
        // Consecutive pages of one slab: no allocator header between them.
        Assert.Equal(256L * PageSize, high - low);

        foreach (var buffer in buffers) pool.Return(buffer);
        while (pool.ParkIdle(keepBytes: 0, maxBuffers: 1000)) { }
        Assert.Equal(0, ResidentPages((byte*)low, high - low));
        var again = pool.Rent();
        Assert.All(again.GetSpan().ToArray(), b => Assert.Equal(0, b));
        pool.Return(again);
    }

    /// <summary>Pages of the range that are in memory now (mincore).</summary>
    private static unsafe int ResidentPages(byte* start, long length)
    {
        var vector = new byte[length / PageSize];
        fixed (byte* v = vector) Assert.Equal(0, MinCore(start, (nuint)length, v));
        return vector.Count(b => (b & 1) != 0);
    }

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "mincore")]
    private static extern unsafe int MinCore(byte* start, nuint length, byte* vector);
}
