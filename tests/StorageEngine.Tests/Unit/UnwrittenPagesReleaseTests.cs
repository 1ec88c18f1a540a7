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
    public void While_a_checkpoint_collects_only_the_versions_it_collected_are_held_back()
    {
        using var pages = new HeldPages();
        var collectedVersion = pages.Commit(page: 10, transactionId: 1, publishedId: 1);
        var collected = pages.Unwritten.Collect();

        // Both versions are replaced while the checkpoint runs; only the first one is in its collection.
        pages.Commit(page: 10, transactionId: 2, publishedId: 2);
        var laterVersion = pages.Commit(page: 20, transactionId: 3, publishedId: 3);
        pages.Commit(page: 20, transactionId: 4, publishedId: 4);
        pages.Release();

        Assert.Same(laterVersion, pages.TakeFromPool());
        Assert.NotSame(collectedVersion, pages.TakeFromPool());

        pages.Unwritten.EndCollect(collected);
        pages.Release();
        Assert.Same(collectedVersion, pages.TakeFromPool());
    }

    [Fact]
    public void A_version_a_reader_may_still_see_is_held_back_even_with_no_checkpoint_running()
    {
        using var pages = new HeldPages();
        var oldVersion = pages.Commit(page: 10, transactionId: 1, publishedId: 1);
        int slot = pages.Readers.Register(1);
        pages.Commit(page: 10, transactionId: 2, publishedId: 1);

        pages.Release();
        Assert.NotSame(oldVersion, pages.TakeFromPool());

        pages.Readers.Release(slot);
        pages.Release();
        Assert.Same(oldVersion, pages.TakeFromPool());
    }

    /// <summary>Held pages with their pool and readers; frees every buffer it made when disposed.</summary>
    private sealed class HeldPages : IDisposable
    {
        private readonly PageBufferPool _pool = new(PageSize);
        private readonly List<NativeBuffer> _taken = [];

        public UnwrittenPages Unwritten { get; } = new(() => 10);

        public ReaderTable Readers { get; } = new(4);

        /// <summary>A new version of single page <paramref name="page"/>, committed; returns its buffer.</summary>
        public NativeBuffer Commit(long page, long transactionId, long publishedId)
        {
            var buffer = new NativeBuffer(PageSize);
            Unwritten.Add([new CommittedRun(page, 1, buffer, false)], transactionId, publishedId);
            return buffer;
        }

        /// <summary>What a commit's release does: retired versions nobody can read go back to the pool.</summary>
        public void Release() => Unwritten.ReleaseRetired(Readers, oldestPending: long.MaxValue, _pool);

        /// <summary>The buffer the writer would get next.</summary>
        public NativeBuffer TakeFromPool()
        {
            var buffer = _pool.Rent();
            _taken.Add(buffer);
            return buffer;
        }

        public void Dispose()
        {
            Unwritten.ReleaseAll(_pool);
            _pool.Dispose();
            foreach (var buffer in _taken) buffer.Free();
        }
    }
}
