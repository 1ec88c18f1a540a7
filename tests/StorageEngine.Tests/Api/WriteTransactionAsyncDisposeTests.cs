using StorageEngine.Platform;
using StorageEngine.Tests.Faults;
using StorageEngine.Tests.Unit;
using static StorageEngine.Tests.Api.AsyncDisposeTests;

namespace StorageEngine.Tests.Api;

/// <summary>
/// <c>await using</c> on a write transaction: DisposeAsync ends it like Dispose (aborted unless committed, the
/// writer free at once), completes synchronously, never waits for a CommitAsync in flight nor masks a commit's
/// failure, changes nothing when called again, and runs the close of an environment disposed meanwhile on a pool
/// thread instead of the caller's.
/// </summary>
public sealed class WriteTransactionAsyncDisposeTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    private static long Count(StorageEnvironment env)
    {
        using var read = env.BeginRead();
        return read.TryOpenTree("t", out var tree) ? tree.Count : 0;
    }

    private static bool IsLocked(MemoryFileSystem memory)
    {
        try
        {
            StorageEnvironment.Open(Options(memory)).Dispose();
            return false;
        }
        catch (EnvironmentLockedException)
        {
            return true;
        }
    }

    /// <summary>Whether another thread can begin a write transaction within <paramref name="wait"/>.</summary>
    private static async Task<bool> WriterFreeFromAnotherThread(StorageEnvironment env, TimeSpan wait) =>
        await Task.Factory.StartNew(() =>
        {
            try
            {
                env.BeginWrite(wait).Dispose();
                return true;
            }
            catch (TimeoutException)
            {
                return false;
            }
        }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);

    [Fact]
    public async Task Await_using_without_a_commit_aborts_and_frees_the_writer_synchronously()
    {
        using var env = StorageEnvironment.Open(Options(new MemoryFileSystem()));
        Commit(env, 0, 10);

        await using (var tx = await env.BeginWriteAsync())
            tx.OpenTree("t").Put(TestData.Key(10), TestData.Value(10, 100));
        var open = env.BeginWrite();
        open.OpenTree("t").Delete(TestData.Key(0));
        var ending = open.DisposeAsync();

        Assert.True(ending.IsCompletedSuccessfully, "DisposeAsync of an aborted transaction did not complete synchronously");
        await ending;
        Assert.Equal(10, Count(env));
        Assert.True(await WriterFreeFromAnotherThread(env, Patience));
    }

    [Fact]
    public async Task Data_committed_with_CommitAsync_inside_await_using_is_visible_and_durable_after_the_scope()
    {
        var memory = new MemoryFileSystem();
        var env = StorageEnvironment.Open(Options(memory));
        await using (var tx = await env.BeginWriteAsync())
        {
            var tree = tx.CreateTree("t");
            for (int i = 0; i < 10; i++) tree.Put(TestData.Key(i), TestData.Value(i, 100));
            await tx.CommitAsync();
        }

        Assert.Equal(10, Count(env));
        await env.DisposeAsync();
        using var reopened = StorageEnvironment.Open(Options(memory));
        Assert.Equal(10, Count(reopened));
    }

    [Fact]
    public async Task DisposeAsync_does_not_wait_for_a_CommitAsync_in_flight_whose_task_reports_its_durability()
    {
        var gate = new IoGate { FlushesOf = _ => false, WritesOf = Fault.JournalFile };
        using var env = StorageEnvironment.Open(Options(new GatedFileSystem(new MemoryFileSystem(), gate)));
        Commit(env, 0, 10);

        gate.Arm();
        ValueTask durable;
        ValueTask ending;
        await using (var tx = env.BeginWrite())
        {
            tx.OpenTree("t").Put(TestData.Key(10), TestData.Value(10, 100));
            durable = tx.CommitAsync();
            ending = tx.DisposeAsync();
        }
        Assert.True(gate.WaitUntilReached(Patience), "the commit never wrote its journal record: the test checks nothing");
        bool endedBeforeDurable = ending.IsCompletedSuccessfully && !durable.IsCompleted;
        gate.Release();
        await durable.AsTask().WaitAsync(Patience);

        Assert.True(endedBeforeDurable, "DisposeAsync waited for the commit's journal write");
        Assert.Equal(11, Count(env));
    }

    [Fact]
    public async Task A_commit_refused_after_a_failed_operation_leaves_the_transaction_to_DisposeAsync_which_aborts_it()
    {
        using var env = StorageEnvironment.Open(Options(new MemoryFileSystem()));
        Commit(env, 0, 10);
        var tx = await env.BeginWriteAsync();
        var tree = tx.OpenTree("t");
        tree.Put(TestData.Key(10), TestData.Value(10, 100));
        // This thread is inside an operation while another thread calls Put: the refusal fails the transaction.
        bool asOwner = tx.Enter("Test.Running");
        var refused = await Task.Factory.StartNew(() => Record.Exception(() => tree.Put(TestData.Key(11), TestData.Value(11, 100))),
            CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        tx.Exit(asOwner);
        Assert.IsType<InvalidOperationException>(refused);
        Assert.Throws<InvalidOperationException>(() => { _ = tx.CommitAsync(); });

        await tx.DisposeAsync();

        Assert.Equal(10, Count(env));
        Assert.True(await WriterFreeFromAnotherThread(env, Patience));
        Assert.Throws<ObjectDisposedException>(() => tx.Commit());
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task After_a_commit_whose_journal_write_failed_DisposeAsync_completes_at_once_and_the_failure_stays_the_commits(bool asynchronous)
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var env = StorageEnvironment.Open(Options(fileSystem));
        Commit(env, 0, 10);

        fileSystem.Arm(new Fault(FileOperation.Write, 1, FaultKind.DiskFull, Files: Fault.JournalFile));
        var tx = await env.BeginWriteAsync();
        tx.OpenTree("t").Put(TestData.Key(10), TestData.Value(10, 100));
        var failure = asynchronous
            ? await Record.ExceptionAsync(async () => await tx.CommitAsync())
            : Record.Exception(() => tx.Commit());
        var ending = tx.DisposeAsync();
        fileSystem.Clear();

        Assert.IsType<StorageException>(failure);
        Assert.True(ending.IsCompletedSuccessfully, "DisposeAsync after a failed commit did not complete at once");
        await ending;
        Assert.False(env.GetHealth().AcceptsWrites);
        await env.DisposeAsync();
        using var reopened = StorageEnvironment.Open(Options(fileSystem));
        Assert.True(Count(reopened) >= 10);
    }

    [Fact]
    public async Task A_second_DisposeAsync_or_Dispose_changes_nothing_and_leaves_the_next_writer_its_lock()
    {
        var memory = new MemoryFileSystem();
        var env = StorageEnvironment.Open(Options(memory));
        Commit(env, 0, 10);

        var first = env.BeginWrite();
        await first.DisposeAsync();
        await first.DisposeAsync();
        first.Dispose();
        var disposedFirst = env.BeginWrite();
        disposedFirst.Dispose();
        await disposedFirst.DisposeAsync();

        var second = env.BeginWrite();
        second.OpenTree("t").Put(TestData.Key(10), TestData.Value(10, 100));
        await first.DisposeAsync();
        first.Dispose();
        await disposedFirst.DisposeAsync();
        // The writer is still the second's, and the environment still counts it open.
        Assert.False(await WriterFreeFromAnotherThread(env, TimeSpan.FromMilliseconds(200)));
        await env.DisposeAsync();
        Assert.True(IsLocked(memory), "the environment closed under an open write transaction: an end was counted twice");

        await second.DisposeAsync();
        Assert.False(IsLocked(memory));
        using var reopened = StorageEnvironment.Open(Options(memory));
        Assert.Equal(10, Count(reopened));
    }

    [Fact]
    public async Task Ending_the_last_transaction_of_a_disposed_environment_runs_the_close_off_the_callers_thread()
    {
        var memory = new MemoryFileSystem();
        var gate = new IoGate();
        var env = StorageEnvironment.Open(Options(new GatedFileSystem(memory, gate)));
        Commit(env, 0, 1_000);
        var tx = env.BeginWrite();
        tx.OpenTree("t").Put(TestData.Key(1_000), TestData.Value(1_000, 100));
        await env.DisposeAsync().AsTask().WaitAsync(Patience);
        Assert.True(IsLocked(memory), "the environment closed under an open write transaction");

        gate.Arm();
        var ending = tx.DisposeAsync();
        bool returnedBeforeTheFlush = !ending.IsCompleted;
        bool flushReached = gate.WaitUntilReached(Patience);
        gate.Release();
        await ending.AsTask().WaitAsync(Patience);

        Assert.True(flushReached, "the close never flushed: the test checks nothing");
        Assert.True(returnedBeforeTheFlush, "DisposeAsync ran the environment's close on the caller's thread");
        // Complete once closed: the lock is free, and the final checkpoint kept the commits, not the aborted change.
        Assert.False(IsLocked(memory));
        using var reopened = StorageEnvironment.Open(Options(memory));
        Assert.Equal(1_000, Count(reopened));
    }
}
