using StorageEngine.Platform;
using StorageEngine.Tests.Unit;
using static StorageEngine.Tests.Api.GroupedWriteData;

namespace StorageEngine.Tests.Api;

/// <summary>
/// <see cref="StorageEnvironment.WriteAsync"/>: the same grouped writes as <see cref="StorageEnvironment.Write"/>, for
/// callers that await. Its batches share groups with blocking callers, a task may lead a group, and each task ends
/// as its own batch did: committed, refused alone, or failed with its group. (A task handed the lead by a group that
/// committed, rather than finding none under way, happens throughout the concurrent test; no test pins that moment.)
/// </summary>
public sealed class GroupedWriteAsyncTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    private static Task WriteFromAnotherFlow(StorageEnvironment environment, string tree, WriteBatch batch) =>
        Task.Run(() => environment.WriteAsync(tree, batch).AsTask());

    /// <summary>A blocking <see cref="StorageEnvironment.Write"/> on a thread of its own; the task ends as the call does.</summary>
    private static Task WriteOnOwnThread(StorageEnvironment environment, string tree, WriteBatch batch)
    {
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        new Thread(() =>
        {
            try
            {
                environment.Write(tree, batch);
                done.SetResult();
            }
            catch (Exception e)
            {
                done.SetException(e);
            }
        }).Start();
        return done.Task;
    }

    private static void WaitUntilQueued(StorageEnvironment environment, int batches)
    {
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (environment.GroupedWriteQueue.Outstanding < batches && waited.Elapsed < Patience) Thread.Sleep(1);
        Assert.Equal(batches, environment.GroupedWriteQueue.Outstanding);
    }

    [Fact]
    public async Task A_batch_written_asynchronously_is_committed_when_its_task_completes_and_survives_a_reopen()
    {
        var fileSystem = new MemoryFileSystem();
        using (var environment = WithTree(TestData.SafeOptions(fileSystem)))
        {
            await environment.WriteAsync("t", PutOf(1));
            using var read = environment.BeginRead();
            Assert.True(read.OpenTree("t").TryGet(TestData.Key(1), out var value));
            Assert.True(value.SequenceEqual(TestData.Value(1, 20)));
            Assert.Equal(0, environment.GroupedWriteQueue.Outstanding);
        }
        using var reopened = StorageEnvironment.Open(TestData.SafeOptions(fileSystem));
        using var again = reopened.BeginRead();
        Assert.True(again.OpenTree("t").TryGet(TestData.Key(1), out _));
    }

    [Fact]
    public async Task Tasks_and_threads_queued_behind_a_task_that_leads_share_its_one_commit_and_a_refused_batch_fails_alone()
    {
        using var environment = WithTree();
        long before;
        using (var read = environment.BeginRead()) before = read.SnapshotId;

        var held = environment.BeginWrite();
        // The first call leads: it awaits the write lock this thread holds. (Calls from another flow: this one's
        // would be refused, as it holds the write transaction.)
        var first = WriteFromAnotherFlow(environment, "t", PutOf(1));
        WaitUntilQueued(environment, 1);
        var missing = WriteFromAnotherFlow(environment, "missing", PutOf(2));
        var thread = WriteOnOwnThread(environment, "t", PutOf(3));
        var last = WriteFromAnotherFlow(environment, "t", PutOf(4));
        WaitUntilQueued(environment, 4);
        Assert.False(first.IsCompleted);
        held.Dispose();

        await first.WaitAsync(Patience);
        await last.WaitAsync(Patience);
        await thread.WaitAsync(Patience);
        var refused = await Assert.ThrowsAsync<InvalidOperationException>(() => missing.WaitAsync(Patience));
        Assert.Contains("no tree named 'missing'", refused.Message);

        using var after = environment.BeginRead();
        Assert.Equal(before + 1, after.SnapshotId);
        var tree = after.OpenTree("t");
        Assert.Equal(3, tree.Count);
        foreach (int key in new[] { 1, 3, 4 }) Assert.True(tree.TryGet(TestData.Key(key), out _), $"key {key} missing");
        Assert.Equal(0, environment.GroupedWriteQueue.Outstanding);
    }

    [Fact]
    public async Task A_task_queued_while_a_blocking_leader_waits_for_the_lock_is_applied_in_its_commit()
    {
        using var environment = WithTree();
        long before;
        using (var read = environment.BeginRead()) before = read.SnapshotId;
        var held = environment.BeginWrite();
        var leader = WriteOnOwnThread(environment, "t", PutOf(1));
        WaitUntilQueued(environment, 1);
        // Queued after the blocked leader took its group: it joins that group once the leader has the lock.
        var waiting = WriteFromAnotherFlow(environment, "t", PutOf(2));
        WaitUntilQueued(environment, 2);
        held.Dispose();

        await leader.WaitAsync(Patience);
        await waiting.WaitAsync(Patience);
        using var after = environment.BeginRead();
        Assert.Equal(before + 1, after.SnapshotId);
        Assert.Equal(2, after.OpenTree("t").Count);
        Assert.Equal(0, environment.GroupedWriteQueue.Outstanding);
    }

    [Fact]
    public async Task A_canceled_call_queues_nothing_and_a_closed_environment_faults_the_task()
    {
        var environment = WithTree();
        using (var canceled = new CancellationTokenSource())
        {
            canceled.Cancel();
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => environment.WriteAsync("t", PutOf(1), canceled.Token).AsTask());
        }
        Assert.Equal(0, environment.GroupedWriteQueue.Outstanding);
        using (var read = environment.BeginRead()) Assert.Equal(0, read.OpenTree("t").Count);

        environment.Dispose();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => environment.WriteAsync("t", PutOf(1)).AsTask());
        Assert.Equal(0, environment.GroupedWriteQueue.Outstanding);
    }

    [Fact]
    public async Task A_flow_holding_a_write_transaction_is_refused_instead_of_waiting_for_itself()
    {
        using var environment = WithTree();
        using var transaction = environment.BeginWrite();
        var refused = await Assert.ThrowsAsync<InvalidOperationException>(() => environment.WriteAsync("t", PutOf(1)).AsTask());
        Assert.Contains("holds the write transaction", refused.Message);
        Assert.Equal(0, environment.GroupedWriteQueue.Outstanding);
    }

    [Fact]
    public async Task Concurrent_tasks_and_threads_leave_what_their_batches_applied_one_by_one_leave()
    {
        const int Tasks = 32;
        const int Threads = 2;
        const int BatchesPerWriter = 150;
        var fileSystem = new MemoryFileSystem();
        var environment = WithTree(TestData.SafeOptions(fileSystem));
        var models = new WriterKeyModels(Tasks + Threads, keysPerWriter: 100, maxOperations: 4);

        WriteBatch NextBatch(int writer, Random random)
        {
            var batch = new WriteBatch();
            models.AddRandomOperations(batch, writer, random);
            return batch;
        }

        var tasks = Enumerable.Range(0, Tasks).Select(w => Task.Run(async () =>
        {
            var random = new Random(w + 1);
            for (int i = 0; i < BatchesPerWriter; i++) await environment.WriteAsync("t", NextBatch(w, random));
        })).ToArray();
        var threads = Enumerable.Range(Tasks, Threads).Select(w => new Thread(() =>
        {
            var random = new Random(w + 1);
            for (int i = 0; i < BatchesPerWriter; i++) environment.Write("t", NextBatch(w, random));
        })).ToArray();
        foreach (var thread in threads) thread.Start();
        await Task.WhenAll(tasks).WaitAsync(Patience);
        foreach (var thread in threads) Assert.True(thread.Join(Patience));
        Assert.Equal(0, environment.GroupedWriteQueue.Outstanding);
        environment.Dispose();

        using var reopened = StorageEnvironment.Open(TestData.SafeOptions(fileSystem));
        using var read = reopened.BeginRead();
        models.AssertHeldBy(read.OpenTree("t"));
        TestData.AssertHealthy(reopened);
    }
}
