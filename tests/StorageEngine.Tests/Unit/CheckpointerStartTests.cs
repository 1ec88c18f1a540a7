using Microsoft.Extensions.Logging.Abstractions;
using StorageEngine.Platform;
using StorageEngine.Transactions;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// The checkpointer's thread is started off the committing thread (a commit does not wait for a core to wake up):
/// by the thread pool, or by a commit once the pool has left the start waiting too long or once there is work for
/// the thread; a close while the start is queued leaves no thread behind.
/// </summary>
public sealed class CheckpointerStartTests
{
    private sealed class CountingTarget : ICheckpointTarget
    {
        private int _checkpoints;

        public int Checkpoints => Volatile.Read(ref _checkpoints);

        public void Checkpoint() => Interlocked.Increment(ref _checkpoints);

        public long UnwrittenBytes => 0;

        private int _spares;

        public int SparesPrepared => Volatile.Read(ref _spares);

        public void PrepareJournal() => Interlocked.Increment(ref _spares);

        public bool ReleaseIdleMemory() => true;
    }

    /// <summary>A thread pool that never gets to the work it is given.</summary>
    private sealed class HeldQueue
    {
        public List<Action> Queued { get; } = new();

        public void Queue(Action work) => Queued.Add(work);
    }

    private static Checkpointer Create(CountingTarget target, HeldQueue queue, long threshold = 1L << 30) =>
        new(target, threshold, memoryThreshold: 1L << 30, interval: TimeSpan.FromMinutes(10), NullLogger.Instance, queue.Queue);

    [Fact]
    public void A_start_the_pool_leaves_waiting_is_made_by_a_commit_after_the_patience_and_the_queued_one_then_does_nothing()
    {
        var target = new CountingTarget();
        var queue = new HeldQueue();
        using var checkpointer = Create(target, queue);

        checkpointer.EnsureStarted();
        checkpointer.OnCommit(journalBytesWritten: 4096);
        Assert.Single(queue.Queued);
        Assert.False(checkpointer.IsRunning);
        // Within the patience a commit that asks for nothing leaves the start to the pool.
        checkpointer.EnsureStarted();
        Assert.False(checkpointer.IsRunning);
        Assert.Single(queue.Queued);

        Thread.Sleep(250);
        checkpointer.EnsureStarted();
        Assert.True(checkpointer.IsRunning);
        Assert.Equal(0, target.Checkpoints);

        queue.Queued[0]();
        Assert.True(checkpointer.IsRunning);
        Assert.Single(queue.Queued);
    }

    [Fact]
    public void A_checkpoint_asked_for_while_the_start_waits_for_the_pool_starts_the_thread_at_once_and_runs()
    {
        var target = new CountingTarget();
        var queue = new HeldQueue();
        using var checkpointer = Create(target, queue, threshold: 1);

        checkpointer.EnsureStarted();
        Assert.False(checkpointer.IsRunning);
        // The journal passed the threshold: the commit that says so starts the thread rather than wait for the pool.
        checkpointer.OnCommit(journalBytesWritten: 4096);
        Assert.True(checkpointer.IsRunning);
        Assert.True(SpinWait.SpinUntil(() => target.Checkpoints >= 1, TimeSpan.FromSeconds(10)), "the started thread ran no checkpoint");

        queue.Queued[0]();
        Assert.Single(queue.Queued);
    }

    [Fact]
    public void A_journal_spare_wanted_before_any_commit_started_the_thread_starts_it_and_is_prepared()
    {
        var target = new CountingTarget();
        var queue = new HeldQueue();
        using var checkpointer = Create(target, queue);

        checkpointer.OnJournalSpareWanted();
        Assert.True(checkpointer.IsRunning);
        Assert.True(SpinWait.SpinUntil(() => target.SparesPrepared >= 1, TimeSpan.FromSeconds(10)), "the started thread prepared no spare");
        Assert.Empty(queue.Queued);
    }

    [Fact]
    public void A_close_with_the_start_still_queued_returns_and_the_queued_start_then_starts_nothing()
    {
        var target = new CountingTarget();
        var queue = new HeldQueue();
        var checkpointer = Create(target, queue);
        checkpointer.EnsureStarted();
        checkpointer.Dispose();

        queue.Queued[0]();
        checkpointer.EnsureStarted();
        Assert.False(checkpointer.IsRunning);
        Assert.Equal(0, target.Checkpoints);
    }

    [Fact]
    public void Environments_closed_right_after_their_first_commit_while_the_pool_starts_their_checkpointers_close_cleanly()
    {
        var fileSystem = new MemoryFileSystem();
        for (int i = 0; i < 200; i++)
        {
            var options = new StorageEnvironmentOptions { Path = $"/db{i}", FileSystem = fileSystem, Durability = DurabilityMode.Safe };
            using (var env = StorageEnvironment.Open(options))
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put("key"u8, "value"u8);
                tx.Commit();
            }
            using var reopened = StorageEnvironment.Open(options);
            using var read = reopened.BeginRead();
            Assert.Equal("value"u8.ToArray(), read.OpenTree("t").Get("key"u8));
        }
    }
}
