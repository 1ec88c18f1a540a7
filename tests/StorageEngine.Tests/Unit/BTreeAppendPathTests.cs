namespace StorageEngine.Tests.Unit;

/// <summary>
/// A put that sorts after every key of the tree reuses the path its previous append left, when nothing changed any
/// tree since. These interleave appends with every change that must end that shortcut (another tree's put, a delete,
/// an overwrite, an insert in the middle, a split, a large value, the commit) and check every key against a model.
/// </summary>
public sealed class BTreeAppendPathTests
{
    private static readonly ByteArrayComparer Order = ByteArrayComparer.Instance;

    [Theory]
    [InlineData(1)]
    [InlineData(7)]
    public void Appends_interleaved_with_other_changes_keep_every_tree_equal_to_its_model(int seed)
    {
        using var env = StorageEnvironment.CreateInMemory();
        var models = new[] { new SortedDictionary<byte[], byte[]>(Order), new SortedDictionary<byte[], byte[]>(Order) };
        var random = new Random(seed);
        int next = 0;
        for (int round = 0; round < 6; round++)
        {
            using (var tx = env.BeginWrite())
            {
                var trees = new[] { tx.CreateTree("a"), tx.CreateTree("b") };
                for (int step = 0; step < 1500; step++)
                {
                    int t = random.Next(10) == 0 ? 1 : 0;
                    var tree = trees[t];
                    var model = models[t];
                    int action = random.Next(20);
                    if (action == 0 && model.Count > 0)
                    {
                        var victim = model.Keys.ElementAt(random.Next(model.Count));
                        Assert.True(tree.Delete(victim));
                        model.Remove(victim);
                    }
                    else if (action == 1 && model.Count > 0)
                    {
                        // An overwrite of the last key: not an append, and it may change that leaf's size.
                        var last = model.Keys.Last();
                        var value = TestData.Value(step, random.Next(1, 300));
                        tree.Put(last, value);
                        model[last] = value;
                    }
                    else if (action == 2)
                    {
                        // A key in the middle: a descent of its own.
                        var key = TestData.Key(random.Next(next + 1));
                        var value = TestData.Value(step, 50);
                        tree.Put(key, value);
                        model[key] = value;
                    }
                    else
                    {
                        var key = TestData.Key(next++);
                        // Now and then a value large enough for overflow pages.
                        var value = TestData.Value(step, random.Next(30) == 0 ? 9000 : random.Next(1, 200));
                        tree.Put(key, value);
                        model[key] = value;
                    }
                }
                for (int t = 0; t < 2; t++) AssertEqual(models[t], trees[t]);
                tx.Commit();
            }
            using var rtx = env.BeginRead();
            AssertEqual(models[0], rtx.OpenTree("a"));
            AssertEqual(models[1], rtx.OpenTree("b"));
        }
        TestData.AssertHealthy(env);
    }

    [Fact]
    public void An_append_after_an_aborted_transaction_descends_again()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (int i = 0; i < 500; i++) tree.Put(TestData.Key(i), TestData.Value(i, 40));
            tx.Commit();
        }
        using (var aborted = env.BeginWrite())
        {
            var tree = aborted.OpenTree("t");
            for (int i = 500; i < 1000; i++) tree.Put(TestData.Key(i), TestData.Value(i, 40));
        }
        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("t");
            for (int i = 1000; i < 1200; i++) tree.Put(TestData.Key(i), TestData.Value(i, 40));
            tx.Commit();
        }
        using var rtx = env.BeginRead();
        var keys = TestData.Scan(rtx.OpenTree("t")).Select(e => e.Key);
        TestData.AssertSameBytes(Enumerable.Range(0, 500).Concat(Enumerable.Range(1000, 200)).Select(TestData.Key), keys);
        TestData.AssertHealthy(env);
    }

    private static void AssertEqual(SortedDictionary<byte[], byte[]> model, Tree tree)
    {
        Assert.Equal(model.Count, tree.Count);
        var scanned = TestData.Scan(tree);
        TestData.AssertSameBytes(model.Keys, scanned.Select(e => e.Key));
        TestData.AssertSameBytes(model.Values, scanned.Select(e => e.Value));
    }
}
