namespace StorageEngine.Tests.Bugs;

/// <summary>
/// A BeginWrite on the thread that already held the write transaction waited the whole WriteTimeout and then
/// blamed "another write transaction". It is now refused with InvalidOperationException saying that this thread
/// holds it, long before the timeout, while a writer handed to another thread to commit is still waited for.
/// BeginWrite and BeginWriteAsync time out with one message.
/// </summary>
public sealed class NestedBeginWriteTests
{
    // Far longer than any test may run: a nested BeginWrite that waited for it would hang the test run.
    // The grace before a nested BeginWrite is refused is 10 s by default (room for a busy machine to schedule the
    // thread a writer was handed to); 2 s here keeps these tests short.
    private static StorageEnvironment OpenWithLongTimeout()
    {
        var environment = StorageEnvironment.Open(new StorageEnvironmentOptions { Durability = DurabilityMode.InMemory, WriteTimeout = TimeSpan.FromHours(1) });
        environment.NestedWriteGrace = TimeSpan.FromSeconds(2);
        return environment;
    }

    [Fact]
    public void A_BeginWrite_on_the_thread_that_holds_the_write_transaction_is_refused_without_waiting_for_the_timeout()
    {
        using var environment = OpenWithLongTimeout();
        using var held = environment.BeginWrite();
        held.CreateTree("t").Put("k"u8, "v"u8);

        var nested = Assert.Throws<InvalidOperationException>(() => environment.BeginWrite());
        Assert.Contains("This thread already holds the write transaction", nested.Message);
        Assert.Contains($"transaction {held.TransactionId}", nested.Message);
        Assert.Throws<InvalidOperationException>(() => environment.BeginWrite(Timeout.InfiniteTimeSpan));

        // The refusal changed nothing: the held transaction commits, and the next BeginWrite here succeeds.
        held.Commit();
        using var next = environment.BeginWrite();
        Assert.Equal("v"u8.ToArray(), next.OpenTree("t").Get("k"u8));
    }

    [Fact]
    public void A_write_transaction_handed_to_another_thread_to_commit_is_waited_for_not_refused()
    {
        using var environment = OpenWithLongTimeout();
        HandOverThenBeginAnother(environment);
    }

    /// <summary>
    /// Begins a writer, hands it to another thread that commits it once this thread waits for the lock, and begins
    /// the next writer here: it must wait for the handed one, not be refused as nested.
    /// </summary>
    private static void HandOverThenBeginAnother(StorageEnvironment environment)
    {
        var handed = environment.BeginWrite();
        handed.CreateTree("t").Put("k"u8, "handed"u8);
        using var release = new ManualResetEventSlim();
        var committer = Task.Factory.StartNew(() =>
        {
            release.Wait();
            handed.Commit();
        }, TaskCreationOptions.LongRunning);
        // Let the other thread take the transaction once this thread is waiting for the lock.
        _ = Task.Run(async () =>
        {
            await Task.Delay(50);
            release.Set();
        });

        using (var next = environment.BeginWrite())
        {
            Assert.Equal("handed"u8.ToArray(), next.OpenTree("t").Get("k"u8));
        }
        committer.GetAwaiter().GetResult();
    }

    [Fact]
    public async Task Another_thread_waits_for_the_writer_that_this_thread_holds()
    {
        using var environment = OpenWithLongTimeout();
        // Only the thread and flow that began the writer are refused; anyone else waits for it.
        var held = environment.BeginWrite();
        var waiter = Task.Factory.StartNew(() =>
        {
            using var next = environment.BeginWrite();
            return next.OpenTree("t").Count;
        }, TaskCreationOptions.LongRunning);
        await Task.Delay(100);
        Assert.False(waiter.IsCompleted);
        held.CreateTree("t").Put("k"u8, "v"u8);
        held.Commit();
        Assert.Equal(1, await waiter);
    }

    [Fact]
    public async Task BeginWrite_and_BeginWriteAsync_time_out_with_the_same_message()
    {
        using var environment = StorageEnvironment.Open(new StorageEnvironmentOptions
        {
            Durability = DurabilityMode.InMemory,
            WriteTimeout = TimeSpan.FromMilliseconds(20),
        });
        using var holder = new ManualResetEventSlim();
        using var done = new ManualResetEventSlim();
        var holding = Task.Factory.StartNew(() =>
        {
            using var held = environment.BeginWrite();
            holder.Set();
            done.Wait();
        }, TaskCreationOptions.LongRunning);
        holder.Wait();

        var sync = Assert.Throws<TimeoutException>(() => environment.BeginWrite());
        var async = await Assert.ThrowsAsync<TimeoutException>(async () => await environment.BeginWriteAsync());
        Assert.Equal(sync.Message, async.Message);
        Assert.Contains("Another write transaction held the environment", sync.Message);
        done.Set();
        await holding;
    }

    // A thread of its own (no pool, no synchronization context) tells the flow by the thread alone, without the
    // AsyncLocal that the tests above go through (xUnit runs them under its synchronization context).
    private static void OnOwnThread(Action action)
    {
        Exception? failure = null;
        var thread = new Thread(() =>
        {
            try
            {
                Assert.Null(SynchronizationContext.Current);
                Assert.False(Thread.CurrentThread.IsThreadPoolThread);
                action();
            }
            catch (Exception e)
            {
                failure = e;
            }
        });
        thread.Start();
        thread.Join();
        if (failure is not null) throw new Xunit.Sdk.XunitException($"On the thread of its own: {failure}");
    }

    [Fact]
    public void On_a_thread_of_its_own_a_nested_BeginWrite_is_refused_too()
    {
        using var environment = OpenWithLongTimeout();
        OnOwnThread(() =>
        {
            using var held = environment.BeginWrite();
            var nested = Assert.Throws<InvalidOperationException>(() => environment.BeginWrite());
            Assert.Contains("This thread already holds the write transaction", nested.Message);
            held.Commit();
            using var next = environment.BeginWrite();
        });
    }

    [Fact]
    public void On_a_thread_of_its_own_a_writer_handed_to_another_thread_is_waited_for()
    {
        using var environment = OpenWithLongTimeout();
        OnOwnThread(() => HandOverThenBeginAnother(environment));
    }

    [Fact]
    public void A_writer_begun_on_a_thread_of_its_own_and_used_on_another_makes_that_other_thread_wait()
    {
        using var environment = OpenWithLongTimeout();
        environment.NestedWriteGrace = TimeSpan.FromMilliseconds(300);
        WriteTransaction? held = null;
        OnOwnThread(() => held = environment.BeginWrite());
        // The writer is last used on a second thread, which then begins a writer itself: it did not begin the held
        // one, so it waits (past the grace) for it instead of being refused as nested.
        long seen = -1;
        Exception? failure = null;
        var second = new Thread(() =>
        {
            try
            {
                held!.CreateTree("t").Put("k"u8, "v"u8);
                using var next = environment.BeginWrite();
                seen = next.OpenTree("t").Count;
            }
            catch (Exception e)
            {
                failure = e;
            }
        });
        second.Start();
        Assert.False(second.Join(TimeSpan.FromMilliseconds(800)));
        held!.Commit();
        second.Join();
        Assert.Null(failure);
        Assert.Equal(1, seen);
    }
}
