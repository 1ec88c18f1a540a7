using System.Buffers.Binary;
using StorageEngine.Platform;

namespace StorageEngine.Tests.Unit;

/// <summary>A reader sees one consistent snapshot for its whole life, whatever the writer commits meanwhile.</summary>
public sealed class SnapshotIsolationTests
{
    private const int KeyCount = 1500;

    private static byte[] OldValue(int i) => TestData.Value(i, 50 + i % 150);

    private static void Seed(StorageEnvironment env)
    {
        using var tx = env.BeginWrite();
        var main = tx.CreateTree("main");
        for (int i = 0; i < KeyCount; i++) main.Put(TestData.Key(i), OldValue(i));
        var doomed = tx.CreateTree("doomed");
        for (int i = 0; i < 300; i++) doomed.Put(TestData.Key(i), TestData.Value(-i, 700));
        doomed.Put("big"u8, TestData.Value(77, 50_000));
        tx.Commit();
    }

    /// <summary>Updates, deletes, inserts, drops a tree and creates one, over several commits.</summary>
    private static void RewriteEverything(StorageEnvironment env)
    {
        using (var tx = env.BeginWrite())
        {
            var main = tx.OpenTree("main");
            for (int i = 0; i < KeyCount; i += 2) main.Put(TestData.Key(i), TestData.Value(i + 1, 400));
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            var main = tx.OpenTree("main");
            for (int i = 1; i < KeyCount; i += 2) main.Delete(TestData.Key(i));
            for (int i = KeyCount; i < 2 * KeyCount; i++) main.Put(TestData.Key(i), TestData.Value(i, 100));
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            Assert.True(tx.DeleteTree("doomed"));
            tx.CreateTree("newcomer").Put("n"u8, "new"u8);
            tx.Commit();
        }
        // Later writers may reuse pages only no reader can see; churn gives them every chance to.
        for (int round = 0; round < 3; round++)
        {
            using var tx = env.BeginWrite();
            var main = tx.OpenTree("main");
            for (int i = 0; i < 2 * KeyCount; i += 3) main.Put(TestData.Key(i), TestData.Value(round * 7 + i, 30 + round * 90));
            tx.Commit();
        }
    }

    private static void AssertSeesOriginal(ReadTransaction reader)
    {
        Assert.Equal(["doomed", "main"], reader.GetTreeNames());
        Assert.False(reader.TryOpenTree("newcomer", out _));
        var main = reader.OpenTree("main");
        Assert.Equal(KeyCount, main.Count);
        for (int i = 0; i < KeyCount; i++)
        {
            Assert.True(main.TryGet(TestData.Key(i), out var value), $"key {i} vanished from the snapshot");
            Assert.True(value.SequenceEqual(OldValue(i)), $"key {i} changed in the snapshot");
        }
        Assert.False(main.ContainsKey(TestData.Key(KeyCount)));
        var scanned = TestData.Scan(main);
        TestData.AssertSameBytes(Enumerable.Range(0, KeyCount).Select(TestData.Key), scanned.Select(e => e.Key));
        TestData.AssertSameBytes(Enumerable.Range(0, KeyCount).Select(OldValue), scanned.Select(e => e.Value));

        var doomed = reader.OpenTree("doomed");
        Assert.Equal(301, doomed.Count);
        Assert.Equal(TestData.Value(-299, 700), doomed.Get(TestData.Key(299)));
        Assert.Equal(TestData.Value(77, 50_000), doomed.Get("big"u8));
    }

    [Fact]
    public void A_reader_keeps_seeing_the_data_as_it_was_while_the_writer_commits_changes_in_memory()
    {
        using var env = StorageEnvironment.CreateInMemory();
        Seed(env);
        using var reader = env.BeginRead();
        // A tree opened before the commits and one opened after must agree.
        var openedEarly = reader.OpenTree("main");
        long snapshot = reader.SnapshotId;

        RewriteEverything(env);

        Assert.Equal(snapshot, reader.SnapshotId);
        Assert.Equal(KeyCount, openedEarly.Count);
        AssertSeesOriginal(reader);
        using var fresh = env.BeginRead();
        Assert.Equal(["main", "newcomer"], fresh.GetTreeNames());
        // Even keys, the inserted upper half, and the odd keys the churn put back (multiples of 3).
        int expected = Enumerable.Range(0, 2 * KeyCount).Count(i => i % 2 == 0 || i >= KeyCount || i % 3 == 0);
        Assert.Equal(expected, fresh.OpenTree("main").Count);
    }

    [Fact]
    public void A_reader_keeps_seeing_the_data_as_it_was_in_a_durable_environment_across_checkpoints()
    {
        var fs = new MemoryFileSystem();
        using var env = StorageEnvironment.Open(TestData.SafeOptions(fs));
        Seed(env);
        using var reader = env.BeginRead();

        RewriteEverything(env);
        env.Checkpoint();
        RewriteEverything2(env);
        env.Checkpoint();

        AssertSeesOriginal(reader);
        reader.Dispose();
        TestData.AssertHealthy(env);
    }

    private static void RewriteEverything2(StorageEnvironment env)
    {
        using var tx = env.BeginWrite();
        var main = tx.OpenTree("main");
        for (int i = 0; i < 2 * KeyCount; i++) main.Delete(TestData.Key(i));
        for (int i = 0; i < KeyCount; i++) main.Put(TestData.Key(i), TestData.Value(i * 3, 250));
        tx.Commit();
    }

    [Fact]
    public void Readers_opened_between_commits_each_see_their_own_version()
    {
        using var env = StorageEnvironment.CreateInMemory();
        var readers = new List<(ReadTransaction Reader, int Version)>();
        try
        {
            for (int version = 1; version <= 5; version++)
            {
                using (var tx = env.BeginWrite())
                {
                    var tree = tx.CreateTree("t");
                    for (int i = 0; i < 400; i++) tree.Put(TestData.Key(i), TestData.Value(version * 1000 + i, 20 + version * 60));
                    if (version % 2 == 0) tree.Delete(TestData.Key(version));
                    tx.Commit();
                }
                readers.Add((env.BeginRead(), version));
            }
            foreach (var (reader, version) in readers)
            {
                var tree = reader.OpenTree("t");
                Assert.Equal(version % 2 == 0 ? 399 : 400, tree.Count);
                Assert.Equal(TestData.Value(version * 1000 + 100, 20 + version * 60), tree.Get(TestData.Key(100)));
                Assert.Equal(version % 2 != 0, tree.ContainsKey(TestData.Key(version)));
            }
        }
        finally
        {
            foreach (var (reader, _) in readers) reader.Dispose();
        }
    }

    [Theory]
    [InlineData(DurabilityMode.InMemory)]
    [InlineData(DurabilityMode.Safe)]
    public async Task Concurrent_readers_always_see_a_constant_total_while_the_writer_moves_amounts_between_keys(DurabilityMode mode)
    {
        // The writer moves amounts between accounts, deletes emptied accounts and re-creates them, and pads values
        // to random sizes so pages split, merge and are reused; the total never changes in any committed state.
        const int Accounts = 400;
        const long Total = Accounts * 1000L;
        var fs = new MemoryFileSystem();
        using var env = mode == DurabilityMode.InMemory ? StorageEnvironment.CreateInMemory() : StorageEnvironment.Open(TestData.SafeOptions(fs));
        static byte[] Account(long balance, int padding)
        {
            var value = new byte[8 + padding];
            BinaryPrimitives.WriteInt64LittleEndian(value, balance);
            return value;
        }
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("accounts");
            for (int i = 0; i < Accounts; i++) tree.Put(TestData.Key(i), Account(1000, 16));
            tx.Commit();
        }

        // About a second, but at least some commits however loaded the machine; dedicated threads, so that the
        // busy readers cannot starve the writer of thread-pool threads.
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        var elapsed = System.Diagnostics.Stopwatch.StartNew();
        long commits = 0, snapshotsChecked = 0;
        var writer = Task.Factory.StartNew(() =>
        {
            try
            {
                var random = new Random(1);
                while (!stop.IsCancellationRequested && (elapsed.ElapsedMilliseconds < 1000 || Interlocked.Read(ref commits) < 30))
                {
                    using var tx = env.BeginWrite();
                    var tree = tx.OpenTree("accounts");
                    for (int move = 0; move < 20; move++)
                    {
                        var from = TestData.Key(random.Next(Accounts));
                        var to = TestData.Key(random.Next(Accounts));
                        long fromBalance = tree.TryGet(from, out var f) ? BinaryPrimitives.ReadInt64LittleEndian(f) : 0;
                        long toBalance = tree.TryGet(to, out var t) ? BinaryPrimitives.ReadInt64LittleEndian(t) : 0;
                        if (from.AsSpan().SequenceEqual(to) || fromBalance == 0) continue;
                        long amount = random.Next(1, (int)fromBalance + 1);
                        if (fromBalance == amount) tree.Delete(from);
                        else tree.Put(from, Account(fromBalance - amount, random.Next(0, 600)));
                        tree.Put(to, Account(toBalance + amount, random.Next(0, 600)));
                    }
                    tx.Commit();
                    Interlocked.Increment(ref commits);
                }
            }
            finally
            {
                stop.Cancel();
            }
        }, TaskCreationOptions.LongRunning);
        var readers = Enumerable.Range(0, 3).Select(_ => Task.Factory.StartNew(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                using var tx = env.BeginRead();
                var tree = tx.OpenTree("accounts");
                long sum = 0, entries = 0;
                using (var cursor = tree.CreateCursor())
                {
                    for (bool ok = cursor.First(); ok; ok = cursor.Next())
                    {
                        sum += BinaryPrimitives.ReadInt64LittleEndian(cursor.Value);
                        entries++;
                    }
                }
                Assert.Equal(Total, sum);
                Assert.Equal(tree.Count, entries);
                // Point reads of the same snapshot agree with the scan.
                long pointSum = 0;
                for (int i = 0; i < Accounts; i++)
                {
                    if (tree.TryGet(TestData.Key(i), out var v)) pointSum += BinaryPrimitives.ReadInt64LittleEndian(v);
                }
                Assert.Equal(Total, pointSum);
                Interlocked.Increment(ref snapshotsChecked);
            }
        }, TaskCreationOptions.LongRunning)).ToArray();

        // A failed assertion in any task surfaces here.
        await Task.WhenAll([writer, .. readers]).WaitAsync(TimeSpan.FromSeconds(30));
        Assert.True(Interlocked.Read(ref commits) >= 30, $"only {commits} commits");
        Assert.True(Interlocked.Read(ref snapshotsChecked) > 10, $"only {snapshotsChecked} snapshots checked");
        TestData.AssertHealthy(env);
    }

    [Fact]
    public void A_long_reader_pins_the_pages_it_can_see_so_the_writer_grows_the_file_instead()
    {
        using var env = StorageEnvironment.CreateInMemory();
        Seed(env);
        long before;
        using (var reader = env.BeginRead())
        {
            RewriteEverything(env);
            AssertSeesOriginal(reader);
            before = env.Check().PageCount;
        }
        // With the reader gone the same churn fits in the freed pages.
        RewriteEverything2(env);
        RewriteEverything2(env);
        var report = env.Check();
        Assert.True(report.IsHealthy, report.ToString());
        Assert.Equal(before, report.PageCount);
    }
}
