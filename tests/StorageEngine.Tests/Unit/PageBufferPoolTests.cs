using StorageEngine.Common;
using StorageEngine.Transactions;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// The writer's page buffers are reused: single pages up to the bytes the environment gives the pool (what one
/// checkpoint interval's commits hold), runs of up to 16 pages up to 16 MiB each length, anything else freed.
/// </summary>
public sealed class PageBufferPoolTests
{
    private const int PageSize = 4096;

    [Fact]
    public void SinglePagesAreKeptUpToTheConfiguredBytesAndTheRestFreed()
    {
        const long Limit = 32L << 20;
        using var pool = new PageBufferPool(PageSize, Limit);
        int capacity = (int)(Limit / PageSize);
        var rented = Enumerable.Range(0, capacity + 100).Select(_ => pool.Rent()).ToList();
        foreach (var buffer in rented) pool.Return(buffer);

        var kept = rented.Take(capacity).ToHashSet();
        var again = Enumerable.Range(0, capacity).Select(_ => pool.Rent()).ToList();
        Assert.All(again, buffer => Assert.Contains(buffer, kept));
        Assert.All(rented.Skip(capacity), buffer => Assert.Throws<ObjectDisposedException>(() => buffer.GetSpan()));
        var fresh = pool.Rent();
        Assert.DoesNotContain(fresh, kept);
        foreach (var buffer in again.Append(fresh)) pool.Return(buffer);
    }

    [Fact]
    public void ALimitBelowSixteenMebibytesStillKeepsSixteen()
    {
        using var pool = new PageBufferPool(PageSize, maxSinglePageBytes: 64 << 10);
        var rented = Enumerable.Range(0, 1000).Select(_ => pool.Rent()).ToList();
        foreach (var buffer in rented) pool.Return(buffer);
        Assert.All(rented, buffer => Assert.Equal(PageSize, buffer.GetSpan().Length));
    }

    [Fact]
    public void RunsAreKeptBySixteenMebibytesPerLengthAndLongerRunsAreFreed()
    {
        using var pool = new PageBufferPool(PageSize, 256L << 20);
        int perLength = PageBufferPool.MaxPooledBytesPerLength / (4 * PageSize);
        var runs = Enumerable.Range(0, perLength + 1).Select(_ => pool.Rent(4)).ToList();
        var longRun = pool.Rent(PageBufferPool.MaxPooledRunPages + 1);
        foreach (var buffer in runs) pool.Return(buffer);
        pool.Return(longRun);

        Assert.Throws<ObjectDisposedException>(() => runs[^1].GetSpan());
        Assert.Equal(4 * PageSize, runs[0].GetSpan().Length);
        Assert.Throws<ObjectDisposedException>(() => longRun.GetSpan());
    }
}
