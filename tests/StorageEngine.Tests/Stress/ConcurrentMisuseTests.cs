using System.Collections.Concurrent;
using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Stress;

/// <summary>
/// Misuse from several threads at once: disposing the environment under busy threads, committing one transaction
/// from two threads, a transaction's trees and cursors used from another thread after it ended, one read
/// transaction shared by threads, BeginWrite racing Dispose. Each ends in a clear ObjectDisposedException or
/// InvalidOperationException (or works), never a hang or a different error, and the environment reopens healthy
/// with every acknowledged commit.
/// </summary>
public sealed class ConcurrentMisuseTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task Disposing_the_environment_under_busy_readers_and_a_writer_ends_their_work_with_ObjectDisposedException()
    {
        for (int round = 0; round < 5; round++)
        {
            var fileSystem = new MemoryFileSystem();
            var options = Options(fileSystem);
            var environment = StorageEnvironment.Open(options);
            Commit(environment, 1, 5);
            long acknowledged = 5;
            var unexpected = new ConcurrentQueue<Exception>();
            using var started = new CountdownEvent(4);
            var threads = new List<Task>
            {
                Run(() =>
                {
                    started.Signal();
                    for (long n = 6; ; n++)
                    {
                        Commit(environment, n);
                        Volatile.Write(ref acknowledged, n);
                    }
                }, unexpected),
            };
            for (int r = 0; r < 3; r++)
            {
                threads.Add(Run(() =>
                {
                    started.Signal();
                    while (true)
                    {
                        using var transaction = environment.BeginRead();
                        long last = transaction.SnapshotId;
                        if (last > 0) AssertReadable(transaction, last);
                    }
                }, unexpected));
            }
            Assert.True(started.Wait(Patience));
            await Task.Delay(20 + round * 10);
            environment.Dispose();
            await StressEnvironment.AssertFinish(threads, "threads using the disposed environment");
            Assert.Empty(unexpected);

            using var reopened = StorageEnvironment.Open(options);
            AssertExactly(reopened, Volatile.Read(ref acknowledged));
            AssertHealthy(reopened);
        }
    }

    [Fact]
    public async Task Committing_one_transaction_from_two_threads_at_once_commits_it_once_and_keeps_one_writer_at_a_time()
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        for (int round = 1; round <= 200; round++)
        {
            var transaction = environment.BeginWrite();
            transaction.CreateTree("t", TreeOptions.Int64Keys).Put(round, BitConverter.GetBytes(round));
            using var barrier = new Barrier(2);
            var outcomes = Enumerable.Range(0, 2).Select(_ => Task.Run(() =>
            {
                barrier.SignalAndWait();
                try
                {
                    transaction.Commit();
                    return (Exception?)null;
                }
                catch (Exception e)
                {
                    return e;
                }
            })).ToArray();
            await StressEnvironment.AssertFinish(outcomes, "a double commit");
            var errors = (await Task.WhenAll(outcomes)).Where(e => e is not null).ToList();
            Assert.True(errors.Count == 1, $"round {round}: {2 - errors.Count} of the two commits returned: {string.Join("; ", errors)}");
            Assert.True(errors[0] is InvalidOperationException, $"round {round}: the second commit threw {errors[0]}");
            Assert.Equal(round, environment.LastCommittedTransactionId);

            // Still one writer at a time: the write lock was released once, not twice.
            using var next = environment.BeginWrite();
            Assert.Throws<TimeoutException>(() => Task.Factory.StartNew(() => environment.BeginWrite(TimeSpan.FromMilliseconds(1)).Dispose(), TaskCreationOptions.LongRunning).GetAwaiter().GetResult());
        }
        environment.Dispose();
        using var reopened = StorageEnvironment.Open(options);
        using (var reader = reopened.BeginRead()) Assert.Equal(200, reader.OpenTree("t").Count);
        AssertHealthy(reopened);
    }

    [Fact]
    public async Task Trees_and_cursors_used_from_another_thread_after_their_transaction_ended_throw_ObjectDisposedException()
    {
        using var environment = StorageEnvironment.Open(Options(new MemoryFileSystem()));
        Commit(environment, 1, 30);
        var read = environment.BeginRead();
        var readTree = read.OpenTree(LogTree);
        var cursor = readTree.CreateCursor();
        Assert.True(cursor.First());
        var write = environment.BeginWrite();
        var writeTree = write.OpenTree(LogTree);
        await Task.Run(() =>
        {
            read.Dispose();
            write.Commit();
        });

        var failures = await Task.Run(() => new Action[]
        {
            () => cursor.Next(),
            () => _ = cursor.Key.Length,
            () => _ = readTree.TryGet(1L, out _),
            () => _ = readTree.Count,
            () => writeTree.Put(1, "x"u8),
            () => writeTree.Delete(1),
            () => write.CreateTree("u"),
        }.Select(use => Record.Exception(use)).ToList());
        Assert.All(failures, e => Assert.IsType<ObjectDisposedException>(e));
        AssertExactly(environment, 30);
    }

    [Fact]
    public async Task A_read_transaction_shared_by_threads_reads_correctly_or_refuses_clearly()
    {
        using var environment = StorageEnvironment.Open(Options(new MemoryFileSystem()));
        Commit(environment, 1, 200);
        using var shared = environment.BeginRead();
        var log = shared.OpenTree(LogTree);
        var wrong = new ConcurrentQueue<string>();
        var threads = Enumerable.Range(0, 4).Select(t => Task.Run(() =>
        {
            for (int i = 0; i < 2_000; i++)
            {
                long key = 1_000_001 + (t * 7919 + i) % 200;
                if (!log.TryGet(key, out var value) || !value.SequenceEqual(Value(key))) wrong.Enqueue($"key {key}");
                try
                {
                    // Opening trees changes the transaction's table of open trees: not for concurrent use, but
                    // it must not hang or return another tree.
                    if (shared.OpenTree(i % 2 == 0 ? LogTree : MetaTree).Name != (i % 2 == 0 ? LogTree : MetaTree)) wrong.Enqueue("tree mix-up");
                }
                catch (InvalidOperationException)
                {
                }
            }
        })).ToArray();
        await StressEnvironment.AssertFinish(threads, "threads sharing a read transaction");
        Assert.Empty(wrong);
        AssertExactly(environment, 200);
    }

    [Fact]
    public async Task BeginWrite_racing_Dispose_either_commits_or_throws_ObjectDisposedException()
    {
        for (int round = 0; round < 40; round++)
        {
            var fileSystem = new MemoryFileSystem();
            var options = Options(fileSystem);
            var environment = StorageEnvironment.Open(options);
            Commit(environment, 1);
            using var barrier = new Barrier(3);
            bool committed = false;
            var writer = Task.Run(() =>
            {
                barrier.SignalAndWait();
                try
                {
                    Commit(environment, 2);
                    committed = true;
                }
                catch (ObjectDisposedException)
                {
                }
            });
            var waiter = Task.Run(() =>
            {
                barrier.SignalAndWait();
                try
                {
                    // A second writer, maybe waiting for the lock when the environment goes; it changes nothing.
                    using var transaction = environment.BeginWrite(Patience);
                    _ = transaction.GetTreeNames();
                }
                catch (ObjectDisposedException)
                {
                }
            });
            barrier.SignalAndWait();
            if (round % 2 == 0) Thread.SpinWait(round * 50);
            environment.Dispose();
            await StressEnvironment.AssertFinish([writer, waiter], $"round {round}: writers racing Dispose");

            using var reopened = StorageEnvironment.Open(options);
            using (var reader = reopened.BeginRead())
            {
                Assert.Equal(committed ? 2 : 1, BitConverter.ToInt64(reader.OpenTree(MetaTree).Get("last"u8)));
            }
            AssertHealthy(reopened);
        }
    }

    /// <summary>Runs the body until the environment is disposed; anything but ObjectDisposedException is recorded.</summary>
    private static Task Run(Action body, ConcurrentQueue<Exception> unexpected) => Task.Factory.StartNew(() =>
    {
        try
        {
            body();
        }
        catch (ObjectDisposedException)
        {
        }
        catch (Exception e)
        {
            unexpected.Enqueue(e);
        }
    }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);

    private static void AssertReadable(Transaction transaction, long last)
    {
        var log = transaction.OpenTree(LogTree);
        Assert.True(log.TryGet(1_000_000 + last, out var value) && value.SequenceEqual(Value(1_000_000 + last)), $"snapshot {last} lacks its own key");
    }
}
