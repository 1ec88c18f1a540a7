namespace StorageEngine.Tests.Unit;

/// <summary>Trees with <see cref="TreeOptions.Int64Keys"/>: signed 64-bit keys in numeric order.</summary>
public sealed class Int64KeyTreeTests
{
    private static readonly long[] Edges = [long.MinValue, long.MinValue + 1, -1L << 40, -256, -1, 0, 1, 255, 256, 1L << 40, long.MaxValue - 1, long.MaxValue];

    private static byte[] ValueOf(long key) => TestData.Value((int)(key ^ (key >> 32)), 24);

    private static long[] RandomKeys(int count, int seed)
    {
        var random = new Random(seed);
        var keys = new HashSet<long>(Edges);
        while (keys.Count < count) keys.Add(random.NextInt64(long.MinValue, long.MaxValue));
        return keys.ToArray();
    }

    [Fact]
    public void Put_TryGet_and_Delete_work_for_negative_zero_and_extreme_keys()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("ints", TreeOptions.Int64Keys);
            foreach (long key in Edges) tree.Put(key, ValueOf(key));
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("ints");
            Assert.Equal(Edges.Length, tree.Count);
            foreach (long key in Edges)
            {
                Assert.True(tree.TryGet(key, out var value), $"key {key} is missing");
                Assert.Equal(ValueOf(key), value.ToArray());
            }
            Assert.False(tree.TryGet(2, out _));
            Assert.True(tree.Delete(long.MinValue));
            Assert.True(tree.Delete(-1));
            Assert.False(tree.Delete(-1));
            Assert.False(tree.TryGet(long.MinValue, out _));
            Assert.True(tree.TryGet(long.MinValue + 1, out _));
            Assert.Equal(Edges.Length - 2, tree.Count);
            tx.Commit();
        }
        TestData.AssertHealthy(env);
    }

    [Fact]
    public void Cursor_iterates_in_numeric_order_both_ways_across_many_pages()
    {
        var keys = RandomKeys(5000, seed: 8);
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("ints", TreeOptions.Int64Keys);
            foreach (long key in keys) tree.Put(key, ValueOf(key));
            Assert.True(tree.BTree.Header.Depth >= 2);
            tx.Commit();
        }
        Array.Sort(keys);
        using (var rtx = env.BeginRead())
        {
            var tree = rtx.OpenTree("ints");
            using var cursor = tree.CreateCursor();
            var forward = new List<long>();
            for (bool ok = cursor.First(); ok; ok = cursor.Next())
            {
                forward.Add(cursor.Int64Key);
                if (forward.Count % 97 == 0) Assert.Equal(ValueOf(cursor.Int64Key), cursor.Value.ToArray());
            }
            Assert.Equal(keys, forward);
            var backward = new List<long>();
            for (bool ok = cursor.Last(); ok; ok = cursor.Previous()) backward.Add(cursor.Int64Key);
            Assert.Equal(keys.Reverse(), backward);
        }
        TestData.AssertHealthy(env);
    }

    [Fact]
    public void Seek_and_ranges_use_numeric_order()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("ints", TreeOptions.Int64Keys);
        for (long k = -1000; k <= 1000; k += 10) tree.Put(k, ValueOf(k));

        using var cursor = tree.CreateCursor();
        Assert.True(cursor.Seek(-15));
        Assert.Equal(-10, cursor.Int64Key);
        Assert.True(cursor.Seek(long.MinValue));
        Assert.Equal(-1000, cursor.Int64Key);
        Assert.False(cursor.Seek(1001));

        using var range = tree.CreateCursor(KeyRange.Between(-25L, 25L));
        var inRange = new List<long>();
        for (bool ok = range.First(); ok; ok = range.Next()) inRange.Add(range.Int64Key);
        Assert.Equal([-20L, -10, 0, 10, 20], inRange);
        Assert.True(range.Last());
        Assert.Equal(20, range.Int64Key);
    }

    [Fact]
    public void Deleting_most_keys_in_numeric_order_keeps_the_tree_sound()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("ints", TreeOptions.Int64Keys);
            for (long k = -5000; k < 5000; k++) tree.Put(k, ValueOf(k));
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("ints");
            for (long k = -5000; k < 5000; k++)
            {
                if (k % 50 != 0) Assert.True(tree.Delete(k));
            }
            Assert.Equal(200, tree.Count);
            tx.Commit();
        }
        TestData.AssertHealthy(env);
    }

    [Fact]
    public void Keys_that_are_not_8_bytes_are_rejected()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("ints", TreeOptions.Int64Keys);
        var e = Assert.Throws<ArgumentException>(() => tree.Put("short"u8, "v"u8));
        Assert.Contains("8-byte", e.Message);
        Assert.Throws<ArgumentException>(() => tree.Put(new byte[9], "v"u8));
        Assert.Throws<ArgumentException>(() => tree.TryGet("abc"u8, out _));
    }

    [Fact]
    public void Int64Key_round_trips_every_edge_value()
    {
        var bytes = new byte[Int64Key.Size];
        foreach (long key in Edges.Concat(RandomKeys(1000, seed: 1)))
        {
            Int64Key.Write(bytes, key);
            Assert.Equal(key, Int64Key.Read(bytes));
        }
    }

    [Fact]
    public void Int64Key_encodings_sort_bytewise_in_numeric_order()
    {
        var keys = RandomKeys(2000, seed: 2);
        var encoded = keys.Select(k =>
        {
            var b = new byte[Int64Key.Size];
            Int64Key.Write(b, k);
            return b;
        }).ToList();
        encoded.Sort(ByteArrayComparer.Instance);
        Array.Sort(keys);
        Assert.Equal(keys, encoded.Select(b => Int64Key.Read(b)));
    }

    [Fact]
    public void Long_overloads_on_a_byte_key_tree_use_the_same_encoding()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("bytes");
        tree.Put(-5, "minus five"u8);
        var encoded = new byte[8];
        Int64Key.Write(encoded, -5);
        Assert.Equal("minus five"u8.ToArray(), tree.Get(encoded));
    }
}
