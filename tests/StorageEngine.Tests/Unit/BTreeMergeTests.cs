using StorageEngine.Platform;

namespace StorageEngine.Tests.Unit;

/// <summary>Deletes that empty and merge pages, shrink the tree, and give the pages back for reuse.</summary>
public sealed class BTreeMergeTests
{
    private const int KeyCount = 3000;
    private const int ValueSize = 40;

    private static void Fill(StorageEnvironment env, IEnumerable<int> keys)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        foreach (int i in keys) tree.Put(TestData.LongKey(i), TestData.Value(i, ValueSize));
        tx.Commit();
    }

    public static TheoryData<string> Orders => new() { "ascending", "descending", "random" };

    private static int[] Order(string order) => order switch
    {
        "ascending" => Enumerable.Range(0, KeyCount).ToArray(),
        "descending" => Enumerable.Range(0, KeyCount).Reverse().ToArray(),
        _ => TestData.Shuffled(KeyCount, seed: 3),
    };

    [Theory]
    [MemberData(nameof(Orders))]
    public void Deleting_every_key_returns_the_tree_to_one_empty_leaf(string order)
    {
        using var env = StorageEnvironment.CreateInMemory();
        Fill(env, Enumerable.Range(0, KeyCount));
        long pagesWhenEmpty;
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            Assert.True(tree.BTree.Header.Depth >= 3);
            foreach (int i in Order(order)) Assert.True(tree.Delete(TestData.LongKey(i)));

            Assert.Equal(0, tree.Count);
            Assert.Equal(1, tree.BTree.Header.Depth);
            Assert.Equal(1, tree.BTree.Header.LeafPages);
            Assert.Equal(0, tree.BTree.Header.BranchPages);
            using var cursor = tree.CreateCursor();
            Assert.False(cursor.First());
            Assert.False(cursor.Last());
            tx.Commit();
        }
        var report = env.Check();
        Assert.True(report.IsHealthy, report.ToString());
        Assert.Equal(0, report.EntryCount);
        pagesWhenEmpty = report.PagesInUse;

        // The tree is usable again after being emptied.
        Fill(env, Enumerable.Range(0, 10));
        using (var rtx = env.BeginRead()) Assert.Equal(10, rtx.OpenTree("t").Count);
        // Headers and bitmaps, plus one leaf for the tree of names and one for the emptied tree.
        long expected = StorageEngine.Paging.FreeSpaceMap.InitialPageCount(env.PageSize) + 2;
        Assert.True(pagesWhenEmpty == expected, $"an empty tree still uses {pagesWhenEmpty} pages (expected {expected})");
    }

    [Theory]
    [MemberData(nameof(Orders))]
    public void Deleting_most_keys_merges_pages_and_keeps_the_rest(string order)
    {
        using var env = StorageEnvironment.CreateInMemory();
        Fill(env, Enumerable.Range(0, KeyCount));
        long leavesBefore;
        var kept = new SortedSet<int>();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            leavesBefore = tree.BTree.Header.LeafPages;
            foreach (int i in Order(order))
            {
                if (i % 20 == 0) kept.Add(i);
                else Assert.True(tree.Delete(TestData.LongKey(i)));
            }
            Assert.False(tree.Delete(TestData.LongKey(1)), "a deleted key was deleted again");
            tx.Commit();
        }
        using (var rtx = env.BeginRead())
        {
            var tree = rtx.OpenTree("t");
            Assert.Equal(kept.Count, tree.Count);
            Assert.True(tree.BTree.Header.LeafPages <= leavesBefore / 4, $"{tree.BTree.Header.LeafPages} leaves of {leavesBefore} remain");
            TestData.AssertSameBytes(kept.Select(TestData.LongKey), TestData.Scan(tree).Select(e => e.Key));
            foreach (int i in kept) Assert.Equal(TestData.Value(i, ValueSize), tree.Get(TestData.LongKey(i)));
            Assert.False(tree.ContainsKey(TestData.LongKey(1)));
        }
        TestData.AssertHealthy(env);
    }

    [Fact]
    public void Deletes_spread_over_many_commits_shrink_the_tree_in_a_durable_environment()
    {
        var fs = new MemoryFileSystem();
        var options = TestData.SafeOptions(fs);
        var order = Order("random");
        using (var env = StorageEnvironment.Open(options))
        {
            Fill(env, Enumerable.Range(0, KeyCount));
            for (int batch = 0; batch < 10; batch++)
            {
                using var tx = env.BeginWrite();
                var tree = tx.OpenTree("t");
                for (int j = batch * KeyCount / 10; j < (batch + 1) * KeyCount / 10; j++)
                {
                    if (order[j] % 100 != 0) tree.Delete(TestData.LongKey(order[j]));
                }
                tx.Commit();
            }
        }
        using (var env = StorageEnvironment.Open(options))
        {
            using (var rtx = env.BeginRead())
            {
                var tree = rtx.OpenTree("t");
                Assert.Equal(KeyCount / 100, tree.Count);
                TestData.AssertSameBytes(Enumerable.Range(0, KeyCount / 100).Select(i => TestData.LongKey(i * 100)), TestData.Scan(tree).Select(e => e.Key));
            }
            TestData.AssertHealthy(env);
        }
    }

    [Fact]
    public void Repeated_insert_and_delete_churn_reuses_pages_so_the_file_stops_growing()
    {
        using var env = StorageEnvironment.CreateInMemory();
        var random = new Random(11);
        var pageCounts = new List<long>();
        for (int round = 0; round < 12; round++)
        {
            int start = round * 1000;
            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree("t");
                foreach (int i in TestData.Shuffled(1500, round)) tree.Put(TestData.LongKey(start + i), TestData.Value(i, random.Next(10, 300)));
                tx.Commit();
            }
            using (var tx = env.BeginWrite())
            {
                var tree = tx.OpenTree("t");
                foreach (int i in TestData.Shuffled(1500, round + 100)) Assert.True(tree.Delete(TestData.LongKey(start + i)));
                Assert.Equal(0, tree.Count);
                tx.Commit();
            }
            var report = env.Check();
            Assert.True(report.IsHealthy, report.ToString());
            pageCounts.Add(report.PageCount);
        }
        // After a few rounds every round fits in pages freed by earlier ones.
        Assert.All(pageCounts.Skip(6), count => Assert.Equal(pageCounts[5], count));
        Assert.True(pageCounts[^1] < pageCounts[0] * 2, $"the file grew far beyond one round's size: {string.Join(", ", pageCounts)}");
    }

    [Fact]
    public void Churn_within_one_transaction_reuses_the_pages_it_freed_itself()
    {
        // Pages a transaction allocated and then freed were never seen by a snapshot, so they are reusable at once.
        using var env = StorageEnvironment.CreateInMemory();
        long pagesAfterFirstRound = 0;
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (int round = 0; round < 8; round++)
            {
                for (int i = 0; i < 1000; i++) tree.Put(TestData.LongKey(i), TestData.Value(i, 100));
                for (int i = 0; i < 1000; i++) tree.Delete(TestData.LongKey(i));
                if (round == 0) pagesAfterFirstRound = ((StorageEngine.Transactions.PageWriter)tx.Pages).PageCount;
            }
            Assert.Equal(pagesAfterFirstRound, ((StorageEngine.Transactions.PageWriter)tx.Pages).PageCount);
            tx.Commit();
        }
        TestData.AssertHealthy(env);
    }
}
