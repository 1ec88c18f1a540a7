using StorageEngine.Common;
using StorageEngine.Transactions;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// A page version replaced in memory goes back to the writer's pool once nobody can read it. A checkpoint
/// collecting versions to write holds back only those it collected: the versions commits replace while it
/// runs, often a checkpoint's worth, are reused meanwhile instead of being allocated anew.
/// </summary>
public sealed class UnwrittenPagesReleaseTests
{
    private const int PageSize = 4096;

    [Fact]
    public void WhileACheckpointCollectsOnlyTheVersionsItCollectedAreHeldBack()
    {
        using var pool = new PageBufferPool(PageSize);
        var unwritten = new UnwrittenPages(() => 10);
        var readers = new ReaderTable(4);
        var collectedVersion = new NativeBuffer(PageSize);
        var laterVersion = new NativeBuffer(PageSize);
        unwritten.Add([new CommittedRun(10, 1, collectedVersion, false)], transactionId: 1, publishedId: 1);
        var collected = unwritten.Collect();

        // Both versions are replaced while the checkpoint runs; only the first one is in its collection.
        unwritten.Add([new CommittedRun(10, 1, new NativeBuffer(PageSize), false)], transactionId: 2, publishedId: 2);
        unwritten.Add([new CommittedRun(20, 1, laterVersion, false)], transactionId: 3, publishedId: 3);
        unwritten.Add([new CommittedRun(20, 1, new NativeBuffer(PageSize), false)], transactionId: 4, publishedId: 4);
        unwritten.ReleaseRetired(readers, oldestPending: long.MaxValue, pool);

        Assert.Same(laterVersion, pool.Rent());
        Assert.NotSame(collectedVersion, pool.Rent());

        unwritten.EndCollect(collected);
        unwritten.ReleaseRetired(readers, oldestPending: long.MaxValue, pool);
        Assert.Same(collectedVersion, pool.Rent());
    }

    [Fact]
    public void AVersionAReaderMayStillSeeIsHeldBackEvenWithNoCheckpointRunning()
    {
        using var pool = new PageBufferPool(PageSize);
        var unwritten = new UnwrittenPages(() => 10);
        var readers = new ReaderTable(4);
        var oldVersion = new NativeBuffer(PageSize);
        unwritten.Add([new CommittedRun(10, 1, oldVersion, false)], transactionId: 1, publishedId: 1);
        int slot = readers.Register(1);
        unwritten.Add([new CommittedRun(10, 1, new NativeBuffer(PageSize), false)], transactionId: 2, publishedId: 1);

        unwritten.ReleaseRetired(readers, oldestPending: long.MaxValue, pool);
        Assert.NotSame(oldVersion, pool.Rent());

        readers.Release(slot);
        unwritten.ReleaseRetired(readers, oldestPending: long.MaxValue, pool);
        Assert.Same(oldVersion, pool.Rent());
    }
}
