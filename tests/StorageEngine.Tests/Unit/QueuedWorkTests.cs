using StorageEngine.Common;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// Work queued to the thread pool that the first thread to need it runs itself when the pool has not: it runs
/// exactly once, whoever gets there first, and its failure reaches everyone who waits for it.
/// </summary>
public sealed class QueuedWorkTests
{
    [Fact]
    public void The_work_runs_exactly_once_whether_the_pool_or_a_waiting_thread_starts_it()
    {
        for (int round = 0; round < 2_000; round++)
        {
            int runs = 0;
            var work = QueuedWork.Start(() => Interlocked.Increment(ref runs));
            if (round % 2 == 0) Thread.SpinWait(round % 50);
            work.RunOrWait();
            work.RunOrWait();
            Assert.Equal(1, Volatile.Read(ref runs));
            Assert.True(work.Completion.IsCompletedSuccessfully);
        }
    }

    [Fact]
    public void A_failure_is_thrown_to_every_waiter()
    {
        var work = QueuedWork.Start(() => throw new IOException("disk gone"));
        Assert.Equal("disk gone", Assert.Throws<IOException>(work.RunOrWait).Message);
        Assert.Equal("disk gone", Assert.Throws<IOException>(work.RunOrWait).Message);
        Assert.True(work.Completion.IsFaulted);
    }
}
