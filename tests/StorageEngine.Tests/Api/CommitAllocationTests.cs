using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Api;

/// <summary>
/// Small commits are the hot path of most applications: what they allocate on the managed heap is bounded, so
/// that a regression (an array per commit, a list per tree) shows here rather than as a slow benchmark.
/// Allocation counts are exact per thread, unlike timings, so a bound is a fair unit test.
/// </summary>
public sealed class CommitAllocationTests
{
    // What a one-put commit still allocates: the transaction and tree handles, the commit in flight and the snapshot
    // it publishes, and (under a synchronization context or on a pool thread) the execution context that marks the
    // writer's flow. About 620 bytes per Lazy commit under xUnit since the page writer, its page source and tree
    // objects serve one write transaction after another and a commit in flight holds the snapshot it publishes
    // (2026-11-28); 1.5 KB before, 1.8 KB at c714d0a
    // (2026-11-21), 5.1 KB before commits stopped feeding the garbage collector (67a816e). The bound leaves room
    // for small changes, not for an object per tree or per page, or a list per commit.
    private const long MaxBytesPerOnePutCommit = 1_000;

    [Theory]
    [InlineData(DurabilityMode.Lazy)]
    [InlineData(DurabilityMode.Safe)]
    public void A_one_put_commit_allocates_a_few_kilobytes_at_most(DurabilityMode durability)
    {
        using var directory = new TempDirectory("alloc");
        using var environment = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = directory.Path, Durability = durability });
        var key = new byte[16];
        var value = new byte[100];
        long next = 0;
        void CommitOnePut(int count)
        {
            for (int i = 0; i < count; i++)
            {
                System.Buffers.Binary.BinaryPrimitives.WriteInt64BigEndian(key.AsSpan(8), next++);
                using var transaction = environment.BeginWrite();
                transaction.CreateTree("t").Put(key, value);
                transaction.Commit();
            }
        }

        CommitOnePut(durability == DurabilityMode.Lazy ? 3_000 : 1_000);
        int measured = durability == DurabilityMode.Lazy ? 3_000 : 1_000;
        long before = GC.GetAllocatedBytesForCurrentThread();
        CommitOnePut(measured);
        long perCommit = (GC.GetAllocatedBytesForCurrentThread() - before) / measured;

        Assert.True(perCommit <= MaxBytesPerOnePutCommit, $"a one-put {durability} commit allocated {perCommit} bytes (bound {MaxBytesPerOnePutCommit}).");
        using var read = environment.BeginRead();
        Assert.Equal(next, read.OpenTree("t").Count);
    }
}
