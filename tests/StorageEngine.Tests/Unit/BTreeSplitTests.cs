using StorageEngine.Platform;

namespace StorageEngine.Tests.Unit;

/// <summary>Inserts that split leaves and branches until the tree is at least three levels deep.</summary>
public sealed class BTreeSplitTests
{
    private const int KeyCount = 3000;
    private const int ValueSize = 40;

    public static TheoryData<string> Orders => new() { "ascending", "descending", "random" };

    private static int[] Order(string order) => order switch
    {
        "ascending" => Enumerable.Range(0, KeyCount).ToArray(),
        "descending" => Enumerable.Range(0, KeyCount).Reverse().ToArray(),
        _ => TestData.Shuffled(KeyCount, seed: 42),
    };

    private static void AssertAllKeys(Tree tree)
    {
        Assert.Equal(KeyCount, tree.Count);
        for (int i = 0; i < KeyCount; i++)
        {
            Assert.True(tree.TryGet(TestData.LongKey(i), out var value), $"key {i} is missing");
            Assert.True(value.SequenceEqual(TestData.Value(i, ValueSize)), $"key {i} has a wrong value");
        }
        var scanned = TestData.Scan(tree);
        TestData.AssertSameBytes(Enumerable.Range(0, KeyCount).Select(TestData.LongKey), scanned.Select(e => e.Key));
    }

    [Theory]
    [MemberData(nameof(Orders))]
    public void Inserts_in_any_order_grow_the_tree_to_three_levels_and_keep_every_key(string order)
    {
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            foreach (int i in Order(order)) tree.Put(TestData.LongKey(i), TestData.Value(i, ValueSize));

            Assert.True(tree.BTree.Header.Depth >= 3, $"depth is only {tree.BTree.Header.Depth}");
            AssertAllKeys(tree);
            tx.Commit();
        }
        using (var rtx = env.BeginRead()) AssertAllKeys(rtx.OpenTree("t"));
        TestData.AssertHealthy(env);
    }

    [Fact]
    public void Ascending_inserts_fill_leaves_almost_completely()
    {
        // Appends at the right edge move only the new entry to the new page.
        using var env = StorageEnvironment.CreateInMemory();
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (int i = 0; i < KeyCount; i++) tree.Put(TestData.LongKey(i), TestData.Value(i, ValueSize));

        int entrySize = 8 + TestData.LongKey(0).Length + ValueSize + 2;
        int perFullLeaf = (env.PageSize - 32) / entrySize;
        long minimalLeaves = (KeyCount + perFullLeaf - 1) / perFullLeaf;
        Assert.InRange(tree.BTree.Header.LeafPages, minimalLeaves, minimalLeaves + 1);
    }

    [Fact]
    public void Appends_to_right_edge_pages_with_dead_entries_split_off_the_new_entry_and_keep_every_key()
    {
        // The right edge leaf holds dead entries (from deletes and growing updates) when appends split it.
        var fs = new MemoryFileSystem();
        var options = TestData.SafeOptions(fs);
        var model = new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance);
        var random = new Random(11);
        int next = 0;
        using (var env = StorageEnvironment.Open(options))
        {
            for (int batch = 0; batch < 60; batch++)
            {
                using var tx = env.BeginWrite();
                var tree = batch == 0 ? tx.CreateTree("t") : tx.OpenTree("t")!;
                for (int j = 0; j < 100; j++)
                {
                    var value = TestData.Value(next, random.Next(0, 300));
                    tree.Put(TestData.LongKey(next), value);
                    model[TestData.LongKey(next)] = value;
                    next++;
                    // Now and then a recent key is deleted or grows, leaving a dead entry in the right edge leaf.
                    int recent = next - 1 - random.Next(0, Math.Min(next, 20));
                    if (random.Next(4) == 0 && model.Remove(TestData.LongKey(recent))) Assert.True(tree.Delete(TestData.LongKey(recent)));
                    else if (random.Next(4) == 0 && model.ContainsKey(TestData.LongKey(recent)))
                    {
                        var grown = TestData.Value(recent, random.Next(300, 600));
                        tree.Put(TestData.LongKey(recent), grown);
                        model[TestData.LongKey(recent)] = grown;
                    }
                }
                tx.Commit();
            }
        }
        using (var env = StorageEnvironment.Open(options))
        {
            using (var rtx = env.BeginRead())
            {
                var tree = rtx.OpenTree("t");
                Assert.True(tree.BTree.Header.Depth >= 3, $"depth is only {tree.BTree.Header.Depth}");
                var scanned = TestData.Scan(tree);
                TestData.AssertSameBytes(model.Keys, scanned.Select(e => e.Key));
                TestData.AssertSameBytes(model.Values, scanned.Select(e => e.Value));
            }
            TestData.AssertHealthy(env);
        }
    }

    [Fact]
    public void Keys_inserted_over_many_commits_in_a_durable_environment_survive_reopening()
    {
        var fs = new MemoryFileSystem();
        var options = TestData.SafeOptions(fs);
        var order = Order("random");
        using (var env = StorageEnvironment.Open(options))
        {
            for (int batch = 0; batch < 10; batch++)
            {
                using var tx = env.BeginWrite();
                var tree = tx.CreateTree("t");
                for (int j = batch * KeyCount / 10; j < (batch + 1) * KeyCount / 10; j++)
                    tree.Put(TestData.LongKey(order[j]), TestData.Value(order[j], ValueSize));
                tx.Commit();
            }
        }
        using (var env = StorageEnvironment.Open(options))
        {
            using (var rtx = env.BeginRead())
            {
                var tree = rtx.OpenTree("t");
                Assert.True(tree.BTree.Header.Depth >= 3);
                AssertAllKeys(tree);
            }
            TestData.AssertHealthy(env);
        }
    }

    [Fact]
    public void Random_sized_entries_split_correctly()
    {
        var random = new Random(7);
        var model = new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance);
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (int i = 0; i < 4000; i++)
            {
                var key = new byte[random.Next(1, 200)];
                random.NextBytes(key);
                var value = TestData.Value(i, random.Next(0, 900));
                tree.Put(key, value);
                model[key] = value;
            }
            Assert.True(tree.BTree.Header.Depth >= 3, $"depth is only {tree.BTree.Header.Depth}");
            Assert.Equal(model.Count, tree.Count);
            var scanned = TestData.Scan(tree);
            TestData.AssertSameBytes(model.Keys, scanned.Select(e => e.Key));
            TestData.AssertSameBytes(model.Values, scanned.Select(e => e.Value));
            tx.Commit();
        }
        TestData.AssertHealthy(env);
    }
}
