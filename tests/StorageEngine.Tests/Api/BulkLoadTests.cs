using System.Buffers.Binary;
using StorageEngine.Platform;
using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Api;

/// <summary>BulkLoad: any number of items in batches of transactions, with progress, cancellation between items.</summary>
public sealed class BulkLoadTests
{
    private static KeyValuePair<byte[], byte[]> Item(int i)
    {
        var key = new byte[12];
        BinaryPrimitives.WriteInt32BigEndian(key, i);
        BinaryPrimitives.WriteInt64BigEndian(key.AsSpan(4), (long)i * 7919);
        return new(key, TestData.Value(i, 24 + i % 40));
    }

    private static List<KeyValuePair<byte[], byte[]>> ShuffledItems(int count) =>
        TestData.Shuffled(count, seed: 5).Select(Item).ToList();

    [Fact]
    public void Bulk_loading_100k_shuffled_items_stores_exactly_the_input()
    {
        var fs = new MemoryFileSystem();
        using var env = StorageEnvironment.Open(TestData.SafeOptions(fs));
        var items = ShuffledItems(100_000);
        var progress = new RecordingProgress<BulkLoadProgress>();

        long loaded = env.BulkLoad("bulk", items, new BulkLoadOptions { BatchItems = 10_000 }, progress);

        Assert.Equal(100_000, loaded);
        using var tx = env.BeginRead();
        var tree = tx.OpenTree("bulk");
        Assert.Equal(100_000, tree.Count);
        var expected = items.OrderBy(i => i.Key, ByteArrayComparer.Instance).ToList();
        using (var cursor = tree.CreateCursor())
        {
            int n = 0;
            for (bool more = cursor.First(); more; more = cursor.Next(), n++)
            {
                if (!cursor.Key.SequenceEqual(expected[n].Key) || !cursor.Value.SequenceEqual(expected[n].Value))
                    Assert.Fail($"entry {n} differs from the input");
            }
            Assert.Equal(expected.Count, n);
        }
        Assert.True(env.Check().IsHealthy);

        Assert.Equal(10, progress.Reports.Count);
        Assert.Equal(Enumerable.Range(1, 10).Select(b => b * 10_000L), progress.Reports.Select(p => p.ItemsLoaded));
        Assert.Equal(Enumerable.Range(1, 10), progress.Reports.Select(p => p.BatchesCommitted));
        Assert.All(progress.Reports, p => Assert.Equal(100_000, p.TotalItems));
        Assert.Equal(items.Sum(i => (long)i.Key.Length + i.Value.Length), progress.Reports[^1].BytesLoaded);
    }

    [Fact]
    public void A_batch_ends_at_its_byte_limit_and_a_lazy_sequence_has_no_total()
    {
        using var env = StorageEnvironment.CreateInMemory();
        var progress = new RecordingProgress<BulkLoadProgress>();
        IEnumerable<KeyValuePair<byte[], byte[]>> Lazy()
        {
            for (int i = 0; i < 100; i++) yield return new(BitConverter.GetBytes(i), new byte[1000]);
        }

        env.BulkLoad("t", Lazy(), new BulkLoadOptions { BatchBytes = 10_000 }, progress);

        Assert.Equal(10, progress.Reports.Count);
        Assert.All(progress.Reports, p => Assert.Null(p.TotalItems));
        for (int i = 1; i < progress.Reports.Count; i++) Assert.True(progress.Reports[i].ItemsLoaded > progress.Reports[i - 1].ItemsLoaded);
        Assert.Equal(100, progress.Reports[^1].ItemsLoaded);
    }

    [Fact]
    public void Cancelling_a_bulk_load_keeps_the_committed_batches_and_discards_the_rest()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using var cancel = new CancellationTokenSource();
        var progress = new RecordingProgress<BulkLoadProgress>(p =>
        {
            if (p.BatchesCommitted == 2) cancel.Cancel();
        });

        Assert.ThrowsAny<OperationCanceledException>(() =>
            env.BulkLoad("t", Enumerable.Range(0, 10_000).Select(Item), new BulkLoadOptions { BatchItems = 1_000 }, progress, cancel.Token));

        using var tx = env.BeginRead();
        Assert.Equal(2_000, tx.OpenTree("t").Count);
        Assert.True(env.Check().IsHealthy);
    }

    [Fact]
    public void A_refused_item_aborts_only_the_batch_it_is_in()
    {
        using var env = StorageEnvironment.CreateInMemory();
        var items = Enumerable.Range(0, 250).Select(Item).ToList();
        items[230] = new(null!, [1]);

        var e = Assert.Throws<ArgumentException>(() => env.BulkLoad("t", items, new BulkLoadOptions { BatchItems = 100 }));
        Assert.Contains("Item 230 has a null key", e.Message);

        using var tx = env.BeginRead();
        Assert.Equal(200, tx.OpenTree("t").Count);
    }

    [Fact]
    public void Bulk_load_creates_the_tree_with_the_given_options_and_refuses_a_clash()
    {
        using var env = StorageEnvironment.CreateInMemory();
        var numbers = Enumerable.Range(-50, 100).Select(n =>
        {
            var key = new byte[Int64Key.Size];
            Int64Key.Write(key, n);
            return new KeyValuePair<byte[], byte[]>(key, BitConverter.GetBytes(n));
        });

        env.BulkLoad("numbers", numbers, new BulkLoadOptions { TreeOptions = TreeOptions.Int64Keys });

        using (var tx = env.BeginRead())
        {
            var tree = tx.OpenTree("numbers");
            Assert.Equal(TreeOptions.Int64Keys, tree.Options);
            Assert.True(tree.TryGet(-50, out var value));
            Assert.Equal(-50, BitConverter.ToInt32(value));
        }
        Assert.Throws<ArgumentException>(() => env.BulkLoad("numbers", [Item(1)]));
    }

    [Fact]
    public void Bulk_loading_nothing_creates_an_empty_tree()
    {
        using var env = StorageEnvironment.CreateInMemory();
        Assert.Equal(0, env.BulkLoad("empty", []));
        using var tx = env.BeginRead();
        Assert.Equal(["empty"], tx.GetTreeNames());
    }
}
