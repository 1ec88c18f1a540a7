using StorageEngine.Platform;
using StorageEngine.Tests.Unit;
using static StorageEngine.Tests.Api.GroupedWriteData;

namespace StorageEngine.Tests.Api;

/// <summary>
/// <see cref="StorageEnvironment.Write"/>: batches from several threads share one write transaction, each applied
/// whole or refused alone, and the result is what applying them one by one gives.
/// </summary>
public sealed class GroupedWriteTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Starts one thread per batch, each calling Write, while this thread holds the write lock, and waits until all
    /// of them are queued (the first one leading, held up in BeginWrite). Returns the threads and what each threw.
    /// </summary>
    private static (Thread[] Threads, Exception?[] Failures) QueueBehindHeldLock(StorageEnvironment environment, params (string Tree, WriteBatch Batch)[] writes)
    {
        var failures = new Exception?[writes.Length];
        var threads = writes.Select((write, i) => new Thread(() =>
        {
            try
            {
                environment.Write(write.Tree, write.Batch);
            }
            catch (Exception e)
            {
                failures[i] = e;
            }
        })).ToArray();
        foreach (var thread in threads) thread.Start();
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (environment.GroupedWriteQueue.Outstanding < writes.Length && waited.Elapsed < Patience) Thread.Sleep(1);
        Assert.Equal(writes.Length, environment.GroupedWriteQueue.Outstanding);
        return (threads, failures);
    }

    [Fact]
    public void Batches_queued_behind_a_waiting_leader_are_applied_in_its_one_commit()
    {
        using var environment = WithTree();
        long before;
        using (var read = environment.BeginRead()) before = read.SnapshotId;

        var held = environment.BeginWrite();
        var (threads, failures) = QueueBehindHeldLock(environment, ("t", PutOf(1)), ("t", PutOf(2)), ("t", PutOf(3)), ("t", PutOf(4)));
        held.Dispose();
        foreach (var thread in threads) Assert.True(thread.Join(Patience));

        Assert.All(failures, Assert.Null);
        using var after = environment.BeginRead();
        Assert.Equal(before + 1, after.SnapshotId);
        var tree = after.OpenTree("t");
        for (int key = 1; key <= 4; key++)
        {
            Assert.True(tree.TryGet(TestData.Key(key), out var value));
            Assert.True(value.SequenceEqual(TestData.Value(key, 20)));
        }
        Assert.Equal(0, environment.GroupedWriteQueue.Outstanding);
    }

    [Fact]
    public void A_refused_batch_changes_nothing_and_the_rest_of_its_group_is_applied()
    {
        using var environment = WithTree();
        var tooLong = new WriteBatch();
        tooLong.Put(TestData.Key(10), TestData.Value(10, 20));
        tooLong.Put(new byte[environment.MaxKeySize + 1], TestData.Value(11, 20));

        var held = environment.BeginWrite();
        var (threads, failures) = QueueBehindHeldLock(environment, ("t", PutOf(1)), ("t", tooLong), ("missing", PutOf(2)), ("t", PutOf(3)));
        held.Dispose();
        foreach (var thread in threads) Assert.True(thread.Join(Patience));

        Assert.Null(failures[0]);
        var argument = Assert.IsType<ArgumentException>(failures[1]);
        Assert.Contains("Key 1 of the batch", argument.Message);
        var missing = Assert.IsType<InvalidOperationException>(failures[2]);
        Assert.Contains("no tree named 'missing'", missing.Message);
        Assert.Null(failures[3]);
        using var read = environment.BeginRead();
        var tree = read.OpenTree("t");
        Assert.True(tree.TryGet(TestData.Key(1), out _));
        Assert.True(tree.TryGet(TestData.Key(3), out _));
        Assert.False(tree.TryGet(TestData.Key(10), out _), "the refused batch's valid put was applied");
        Assert.Equal(2, tree.Count);
    }

    [Fact]
    public void A_thread_holding_a_write_transaction_is_refused_instead_of_waiting_for_itself()
    {
        using var environment = WithTree();
        using var transaction = environment.BeginWrite();
        var refused = Assert.Throws<InvalidOperationException>(() => environment.Write("t", PutOf(1)));
        Assert.Contains("holds the write transaction", refused.Message);
        Assert.Equal(0, environment.GroupedWriteQueue.Outstanding);
    }

    [Fact]
    public void Writes_to_a_closed_or_read_only_environment_are_refused_and_leave_the_queue_empty()
    {
        var fileSystem = new MemoryFileSystem();
        using (var environment = StorageEnvironment.Open(TestData.SafeOptions(fileSystem)))
        {
            using var transaction = environment.BeginWrite();
            transaction.CreateTree("t");
            transaction.Commit();
        }
        var options = TestData.SafeOptions(fileSystem);
        options.ReadOnly = true;
        using (var readOnly = StorageEnvironment.Open(options))
        {
            Assert.Throws<InvalidOperationException>(() => readOnly.Write("t", PutOf(1)));
            Assert.Equal(0, readOnly.GroupedWriteQueue.Outstanding);
        }
        var closed = StorageEnvironment.Open(TestData.SafeOptions(fileSystem));
        closed.Dispose();
        Assert.Throws<ObjectDisposedException>(() => closed.Write("t", PutOf(1)));
        Assert.Equal(0, closed.GroupedWriteQueue.Outstanding);
    }

    [Fact]
    public void Concurrent_writers_leave_what_their_batches_applied_one_by_one_leave()
    {
        const int Threads = 4;
        const int BatchesPerThread = 400;
        using var environment = WithTree();
        var models = new WriterKeyModels(Threads, keysPerWriter: 300, maxOperations: 6);
        var threads = Enumerable.Range(0, Threads).Select(t => new Thread(() =>
        {
            var random = new Random(t + 1);
            var batch = new WriteBatch();
            for (int i = 0; i < BatchesPerThread; i++)
            {
                batch.Clear();
                models.AddRandomOperations(batch, t, random);
                environment.Write("t", batch);
            }
        })).ToArray();
        foreach (var thread in threads) thread.Start();
        foreach (var thread in threads) Assert.True(thread.Join(Patience));

        using var read = environment.BeginRead();
        models.AssertHeldBy(read.OpenTree("t"));
        TestData.AssertHealthy(environment);
    }
}
