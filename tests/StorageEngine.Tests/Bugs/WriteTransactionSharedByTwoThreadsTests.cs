using Xunit.Abstractions;
using System.Collections.Concurrent;
using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// One write transaction used by two threads at once corrupted the tree durably: two threads each putting 20,000
/// keys (and deleting every third) into one transaction on a tree of 5,000 keys crashed the process in
/// Node.LeafKey, or a Put threw and Commit still succeeded with keys out of order. Now a second thread's
/// operation is refused while another runs, a transaction on which an operation failed cannot commit, and the
/// file is never damaged.
/// </summary>
public sealed class WriteTransactionSharedByTwoThreadsTests(ITestOutputHelper output)
{
    private const int ExistingKeys = 5_000;
    private const int KeysPerThread = 20_000;

    [Fact]
    public async Task Two_threads_putting_into_one_write_transaction_are_refused_and_the_commit_fails_without_damaging_the_file()
    {
        for (int iteration = 0; iteration < 3; iteration++)
        {
            var fileSystem = new MemoryFileSystem();
            var options = Options(fileSystem);
            var environment = StorageEnvironment.Open(options);
            using (var setup = environment.BeginWrite())
            {
                var tree = setup.CreateTree("t", TreeOptions.Int64Keys);
                for (long key = 0; key < ExistingKeys; key++) tree.Put(key, BitConverter.GetBytes(key));
                setup.Commit();
            }

            var transaction = environment.BeginWrite();
            var shared = transaction.OpenTree("t");
            var refusals = new ConcurrentQueue<InvalidOperationException>();
            var unexpected = new ConcurrentQueue<Exception>();
            using var barrier = new Barrier(2);
            var threads = Enumerable.Range(1, 2).Select(thread => Task.Factory.StartNew(() =>
            {
                barrier.SignalAndWait();
                try
                {
                    for (long i = 0; i < KeysPerThread; i++)
                    {
                        long key = thread * 1_000_000L + i;
                        shared.Put(key, BitConverter.GetBytes(key));
                        if (i % 3 == 2) shared.Delete(key - 1);
                    }
                }
                catch (InvalidOperationException e)
                {
                    refusals.Enqueue(e);
                }
                catch (Exception e)
                {
                    unexpected.Enqueue(e);
                }
            }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)).ToArray();
            await Task.WhenAll(threads);
            Assert.Empty(unexpected);

            bool committed;
            if (refusals.IsEmpty)
            {
                // The two threads never overlapped: every operation ran whole, one after another.
                transaction.Commit();
                committed = true;
            }
            else
            {
                var refusal = Assert.Throws<InvalidOperationException>(() => transaction.Commit());
                Assert.Contains("An earlier operation on this write transaction failed", refusal.Message);
                Assert.Contains("Tree.", refusal.Message);
                transaction.Dispose();
                committed = false;
            }
            environment.Dispose();
            output.WriteLine($"iteration {iteration}: {refusals.Count} threads refused, committed: {committed}{(refusals.TryPeek(out var first) ? $" ({first.Message})" : "")}");

            using var reopened = StorageEnvironment.Open(options);
            AssertHealthy(reopened);
            using var reader = reopened.BeginRead();
            var tree2 = reader.OpenTree("t");
            for (long key = 0; key < ExistingKeys; key++)
                Assert.True(tree2.TryGet(key, out var value) && BitConverter.ToInt64(value) == key, $"iteration {iteration}: existing key {key} lost");
            long added = 2 * (KeysPerThread - KeysPerThread / 3);
            Assert.Equal(committed ? ExistingKeys + added : ExistingKeys, tree2.Count);
        }
    }

    [Fact]
    public async Task An_operation_started_while_another_thread_runs_one_is_refused_and_the_transaction_can_only_be_disposed()
    {
        using var environment = StorageEnvironment.CreateInMemory();
        var transaction = environment.BeginWrite();
        var tree = transaction.CreateTree("t");
        tree.Put("a"u8, "1"u8);

        // This thread is inside an operation (as a Put in progress would be) while another thread calls Put.
        bool asOwner = transaction.Enter("Test.Running");
        var refused = await Task.Factory.StartNew(() => Record.Exception(() => tree.Put("b"u8, "2"u8)), TaskCreationOptions.LongRunning);
        transaction.Exit(asOwner);

        var refusal = Assert.IsType<InvalidOperationException>(refused);
        Assert.Contains("Tree.Put was called on thread", refusal.Message);
        Assert.Contains("one thread at a time", refusal.Message);
        var commit = Assert.Throws<InvalidOperationException>(() => transaction.Commit());
        Assert.Contains("Tree.Put threw InvalidOperationException", commit.Message);
        Assert.Same(refusal, commit.InnerException);
        Assert.Throws<InvalidOperationException>(() => tree.TryGet("a"u8, out _));
        Assert.Throws<InvalidOperationException>(() => { _ = transaction.CommitAsync(); });
        transaction.Dispose();
        Assert.Throws<ObjectDisposedException>(() => transaction.Commit());

        // The write lock was released; nothing of the failed transaction is visible.
        using var next = environment.BeginWrite();
        Assert.Empty(next.GetTreeNames());
    }

    [Fact]
    public void Argument_errors_checked_before_any_change_leave_the_transaction_committable()
    {
        using var environment = StorageEnvironment.CreateInMemory();
        using (var transaction = environment.BeginWrite())
        {
            var tree = transaction.CreateTree("t");
            var integers = transaction.CreateTree("i", TreeOptions.Int64Keys);
            tree.Put("a"u8, "1"u8);
            Assert.Throws<ArgumentException>(() => tree.Put(ReadOnlySpan<byte>.Empty, "x"u8));
            Assert.Throws<ArgumentException>(() => tree.Put(new byte[environment.MaxKeySize + 1], "x"u8));
            Assert.Throws<ArgumentException>(() => integers.Put("abc"u8, "x"u8));
            Assert.Throws<ArgumentException>(() => tree.Delete(ReadOnlySpan<byte>.Empty));
            Assert.Throws<ArgumentException>(() => tree.TryGet(ReadOnlySpan<byte>.Empty, out _));
            Assert.Throws<ArgumentException>(() => transaction.CreateTree(""));
            Assert.Throws<ArgumentException>(() => transaction.CreateTree("t", TreeOptions.Int64Keys));
            using (var cursor = tree.CreateCursor()) Assert.Throws<InvalidOperationException>(() => cursor.Key.Length);
            tree.Put("b"u8, "2"u8);
            transaction.Commit();
        }
        using var reader = environment.BeginRead();
        Assert.Equal(2, reader.OpenTree("t").Count);
    }

    [Fact]
    public void A_cursor_whose_entry_was_removed_says_so_without_failing_the_transaction()
    {
        using var environment = StorageEnvironment.CreateInMemory();
        using (var transaction = environment.BeginWrite())
        {
            var tree = transaction.CreateTree("t", TreeOptions.Int64Keys);
            for (long key = 0; key < 10; key++) tree.Put(key, "v"u8);
            using var cursor = tree.CreateCursor();
            Assert.True(cursor.Last());
            tree.Delete(9L);
            Assert.Throws<InvalidOperationException>(() => cursor.Key.Length);
            tree.Put(10L, "v"u8);
            transaction.Commit();
        }
        using var reader = environment.BeginRead();
        Assert.Equal(10, reader.OpenTree("t").Count);
    }

    [Fact]
    public async Task A_write_transaction_moves_between_threads_between_operations_as_async_code_does()
    {
        using var environment = StorageEnvironment.CreateInMemory();
        using (var transaction = await environment.BeginWriteAsync())
        {
            var tree = transaction.CreateTree("t", TreeOptions.Int64Keys);
            for (long key = 0; key < 100; key++)
            {
                // Each Put on whichever pool thread the previous one handed over to.
                await Task.Factory.StartNew(() => tree.Put(key, BitConverter.GetBytes(key)), TaskCreationOptions.LongRunning);
                await Task.Yield();
            }
            await transaction.CommitAsync();
        }
        using var reader = environment.BeginRead();
        Assert.Equal(100, reader.OpenTree("t").Count);
    }
}
