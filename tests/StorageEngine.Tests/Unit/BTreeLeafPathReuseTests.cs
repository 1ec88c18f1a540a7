namespace StorageEngine.Tests.Unit;

/// <summary>
/// A put whose key lies within the leaf of the previous put reuses that put's descent, when nothing changed any
/// tree since and no split happened. These write runs of nearby keys (ascending, with jumps back and forth across
/// leaves) interleaved with every change that must end the shortcut (another tree's put, deletes that merge
/// leaves, overwrites of another size, overflow values, splits, commits) and check every key against a model and
/// the environment with Check.
/// </summary>
public sealed class BTreeLeafPathReuseTests
{
    private static readonly ByteArrayComparer Order = ByteArrayComparer.Instance;

    [Theory]
    [InlineData(1, false)]
    [InlineData(2, true)]
    public void Runs_of_nearby_keys_interleaved_with_other_changes_keep_every_tree_equal_to_its_model(int seed, bool integerKeys)
    {
        using var env = StorageEnvironment.CreateInMemory();
        var options = integerKeys ? TreeOptions.Int64Keys : TreeOptions.None;
        var models = new[] { new SortedDictionary<byte[], byte[]>(Order), new SortedDictionary<byte[], byte[]>(Order) };
        var random = new Random(seed);
        byte[] KeyOf(long n)
        {
            if (integerKeys)
            {
                var k = new byte[8];
                Int64Key.Write(k, n);
                return k;
            }
            return System.Text.Encoding.ASCII.GetBytes($"key{n:D7}" + new string('x', (int)(n % 13)));
        }
        long cursor = 0;
        for (int round = 0; round < 5; round++)
        {
            using (var tx = env.BeginWrite())
            {
                var trees = new[] { tx.CreateTree("a", options), tx.CreateTree("b", options) };
                for (int step = 0; step < 3000; step++)
                {
                    int t = random.Next(12) == 0 ? 1 : 0;
                    var tree = trees[t];
                    var model = models[t];
                    int action = random.Next(100);
                    if (action < 5) cursor = random.Next(20_000);            // jump elsewhere
                    else if (action < 10) cursor -= random.Next(1, 50);       // step back a little
                    else cursor += random.Next(1, 4);                         // the common case: the next few keys
                    var key = KeyOf(cursor);
                    if (action >= 10 && action < 18)
                    {
                        Assert.Equal(model.Remove(key), tree.Delete(key));
                        continue;
                    }
                    int length = random.Next(20) == 0 ? random.Next(1_500, 5_000) : random.Next(0, 60);
                    var value = new byte[length];
                    random.NextBytes(value);
                    tree.Put(key, value);
                    model[key] = value;
                }
                for (int t = 0; t < 2; t++) Assert.Equal(models[t].Count, trees[t].Count);
                tx.Commit();
            }
            using var read = env.BeginRead();
            foreach (var (name, model) in new[] { ("a", models[0]), ("b", models[1]) })
            {
                var scanned = TestData.Scan(read.OpenTree(name));
                Assert.Equal(model.Count, scanned.Count);
                int i = 0;
                foreach (var (key, value) in model)
                {
                    Assert.True(key.AsSpan().SequenceEqual(scanned[i].Key), $"tree {name}, key {i}");
                    Assert.True(value.AsSpan().SequenceEqual(scanned[i].Value), $"tree {name}, value {i}");
                    i++;
                }
            }
        }
        TestData.AssertHealthy(env);
    }
}
