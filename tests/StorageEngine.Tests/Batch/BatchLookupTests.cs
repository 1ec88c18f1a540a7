namespace StorageEngine.Tests.Batch;

/// <summary>
/// Batch lookups return exactly what a TryGet of each key returns, in the caller's order: checked against a
/// model dictionary on random batches with duplicates and missing keys, on integer and byte-string trees,
/// with overflow values, through the multi-core path, and in write transactions.
/// </summary>
public sealed class BatchLookupTests : IDisposable
{
    private readonly StorageEnvironment _env = StorageEnvironment.CreateInMemory();

    public void Dispose() => _env.Dispose();

    private static byte[] ValueOf(long key, int length) =>
        Enumerable.Range(0, length).Select(i => (byte)(key * 31 + i)).ToArray();

    /// <summary>An integer tree of the even keys 0, 2, ... and its model.</summary>
    private Dictionary<long, byte[]> FillIntegerTree(int count, int valueLength = 16)
    {
        var model = new Dictionary<long, byte[]>();
        using var tx = _env.BeginWrite();
        var tree = tx.CreateTree("ints", TreeOptions.Int64Keys);
        foreach (int i in Unit.TestData.Shuffled(count, 7))
        {
            long key = 2L * i - count; // negative keys too
            var value = ValueOf(key, valueLength);
            tree.Put(key, value);
            model[key] = value;
        }
        tx.Commit();
        return model;
    }

    private static void AssertMatches(IReadOnlyDictionary<long, byte[]> model, long[] keys, BatchLookupResults results)
    {
        Assert.Equal(keys.Length, results.Count);
        int found = 0;
        for (int i = 0; i < keys.Length; i++)
        {
            bool expected = model.TryGetValue(keys[i], out var value);
            Assert.Equal(expected, results.IsFound(i));
            Assert.Equal(expected, results.TryGetValue(i, out var actual));
            if (expected)
            {
                Assert.True(value.AsSpan().SequenceEqual(actual), $"value of key {keys[i]} at position {i}");
                found++;
            }
        }
        Assert.Equal(found, results.FoundCount);
    }

    [Theory]
    [InlineData(1, 10)]
    [InlineData(3_000, 1)]
    [InlineData(3_000, 500)]
    [InlineData(20_000, 5_000)]
    [InlineData(20_000, 70_000)] // large enough for the multi-core path: slices of at least 16K keys
    public void Random_integer_batches_with_duplicates_and_missing_keys_match_the_model(int treeKeys, int batchKeys)
    {
        var model = FillIntegerTree(treeKeys);
        var random = new Random(treeKeys + batchKeys);
        var keys = new long[batchKeys];
        for (int i = 0; i < keys.Length; i++) keys[i] = random.Next(-treeKeys - 10, treeKeys + 10);
        for (int i = 0; i + 1 < keys.Length; i += 7) keys[i + 1] = keys[i]; // duplicates side by side

        using var tx = _env.BeginRead();
        var results = new BatchLookupResults();
        tx.OpenTree("ints").GetMany(keys, results);
        AssertMatches(model, keys, results);
    }

    [Fact]
    public void Sorted_and_reverse_sorted_batches_match_the_model()
    {
        var model = FillIntegerTree(5_000);
        var sorted = Enumerable.Range(-6_000, 12_000).Select(i => (long)i).ToArray();
        using var tx = _env.BeginRead();
        var tree = tx.OpenTree("ints");
        var results = new BatchLookupResults();
        tree.GetMany(sorted, results);
        AssertMatches(model, sorted, results);
        var reversed = sorted.Reverse().ToArray();
        tree.GetMany(reversed, results);
        AssertMatches(model, reversed, results);
    }

    [Fact]
    public void An_empty_batch_finds_nothing()
    {
        FillIntegerTree(100);
        using var tx = _env.BeginRead();
        var results = new BatchLookupResults();
        tx.OpenTree("ints").GetMany(ReadOnlySpan<long>.Empty, results);
        Assert.Equal(0, results.Count);
        Assert.Equal(0, results.FoundCount);
        Assert.Throws<ArgumentOutOfRangeException>(() => results.IsFound(0));
    }

    [Fact]
    public void One_results_object_serves_batches_of_different_sizes()
    {
        var model = FillIntegerTree(2_000);
        using var tx = _env.BeginRead();
        var tree = tx.OpenTree("ints");
        var results = new BatchLookupResults(4);
        var random = new Random(3);
        foreach (int size in new[] { 4, 1_000, 10, 3_000, 0, 7 })
        {
            var keys = Enumerable.Range(0, size).Select(_ => (long)random.Next(-2_100, 2_100)).ToArray();
            tree.GetMany(keys, results);
            AssertMatches(model, keys, results);
        }
    }

    [Fact]
    public void Overflow_values_are_returned_whole()
    {
        var model = FillIntegerTree(300, valueLength: 3_000);
        var keys = model.Keys.Concat([1, 3, 5]).OrderBy(k => k * 7919 % 1000).ToArray();
        using var tx = _env.BeginRead();
        var results = new BatchLookupResults();
        tx.OpenTree("ints").GetMany(keys, results);
        AssertMatches(model, keys, results);
    }

    [Fact]
    public void Byte_string_keys_sharing_long_prefixes_match_the_model()
    {
        // Keys of 1 to 40 bytes over a 3-letter alphabet: many share their first 8 bytes, some are prefixes of others.
        var random = new Random(11);
        byte[] RandomKey() => Enumerable.Range(0, random.Next(1, 41)).Select(_ => (byte)('a' + random.Next(3))).ToArray();
        var model = new SortedDictionary<byte[], byte[]>(Unit.ByteArrayComparer.Instance);
        using (var tx = _env.BeginWrite())
        {
            var tree = tx.CreateTree("bytes");
            for (int i = 0; i < 4_000; i++)
            {
                var key = RandomKey();
                var value = ValueOf(i, random.Next(0, 2_000));
                tree.Put(key, value);
                model[key] = value;
            }
            tx.Commit();
        }
        var keys = new ReadOnlyMemory<byte>[6_000];
        var present = model.Keys.ToArray();
        for (int i = 0; i < keys.Length; i++) keys[i] = i % 2 == 0 ? present[random.Next(present.Length)] : RandomKey();

        using var read = _env.BeginRead();
        var results = new BatchLookupResults();
        read.OpenTree("bytes").GetMany(keys, results);
        for (int i = 0; i < keys.Length; i++)
        {
            bool expected = model.TryGetValue(keys[i].ToArray(), out var value);
            Assert.Equal(expected, results.TryGetValue(i, out var actual));
            if (expected) Assert.True(value.AsSpan().SequenceEqual(actual));
        }
    }

    [Fact]
    public void Lookups_in_a_tree_of_depth_four_climb_and_descend_correctly()
    {
        // 100-byte keys on 4 KB pages: branches hold a few dozen entries, so 40K keys make a deep tree.
        var model = new Dictionary<int, byte[]>();
        using (var tx = _env.BeginWrite())
        {
            var tree = tx.CreateTree("deep");
            foreach (int i in Unit.TestData.Shuffled(40_000, 3))
            {
                if (i % 3 == 0) continue;
                var value = ValueOf(i, 8);
                tree.Put(Unit.TestData.LongKey(i), value);
                model[i] = value;
            }
            Assert.True(tree.GetStatistics().Depth >= 4, $"depth {tree.GetStatistics().Depth}");
            tx.Commit();
        }
        var random = new Random(9);
        var ids = Enumerable.Range(0, 50_000).Select(_ => random.Next(-10, 40_010)).ToArray();
        var keys = ids.Select(i => (ReadOnlyMemory<byte>)Unit.TestData.LongKey(i)).ToArray();
        using var read = _env.BeginRead();
        var results = new BatchLookupResults();
        read.OpenTree("deep").GetMany(keys, results);
        for (int i = 0; i < ids.Length; i++)
        {
            bool expected = model.TryGetValue(ids[i], out var value);
            Assert.Equal(expected, results.TryGetValue(i, out var actual));
            if (expected) Assert.True(value.AsSpan().SequenceEqual(actual));
        }
    }

    [Fact]
    public void A_write_transaction_sees_its_own_changes_and_stale_results_throw()
    {
        FillIntegerTree(1_000);
        using var tx = _env.BeginWrite();
        var tree = tx.OpenTree("ints");
        tree.Put(1, "new"u8);
        tree.Delete(-1_000);
        var results = new BatchLookupResults();
        tree.GetMany([1, -1_000, 0], results);
        Assert.True(results[0].SequenceEqual("new"u8));
        Assert.False(results.IsFound(1));
        Assert.True(results.IsFound(2));

        tree.Put(3, "later"u8);
        Assert.Throws<InvalidOperationException>(() => results.IsFound(0));
    }

    [Fact]
    public void Results_of_an_ended_transaction_throw_ObjectDisposedException()
    {
        FillIntegerTree(100);
        var results = new BatchLookupResults();
        using (var tx = _env.BeginRead()) tx.OpenTree("ints").GetMany([0, 2], results);
        Assert.Throws<ObjectDisposedException>(() => results.TryGetValue(0, out _));
        Assert.Throws<InvalidOperationException>(() => new BatchLookupResults().IsFound(0));
    }

    [Fact]
    public void Empty_null_oversized_and_wrong_width_keys_throw_ArgumentException()
    {
        FillIntegerTree(10);
        using (var tx = _env.BeginWrite())
        {
            tx.CreateTree("bytes").Put("a"u8, "v"u8);
            tx.Commit();
        }
        using var read = _env.BeginRead();
        var results = new BatchLookupResults();
        var bytes = read.OpenTree("bytes");
        Assert.Throws<ArgumentException>(() => bytes.GetMany(new ReadOnlyMemory<byte>[] { "a"u8.ToArray(), ReadOnlyMemory<byte>.Empty }, results));
        Assert.Throws<ArgumentException>(() => bytes.GetMany(new ReadOnlyMemory<byte>[] { null }, results));
        var oversized = Assert.Throws<ArgumentException>(() => bytes.GetMany(new ReadOnlyMemory<byte>[] { new byte[_env.MaxKeySize + 1] }, results));
        Assert.Contains(_env.MaxKeySize.ToString(), oversized.Message);
        Assert.Throws<ArgumentException>(() => read.OpenTree("ints").GetMany(new ReadOnlyMemory<byte>[] { "abc"u8.ToArray() }, results));
        Assert.Throws<ArgumentNullException>(() => bytes.GetMany([1L], null!));
    }
}
