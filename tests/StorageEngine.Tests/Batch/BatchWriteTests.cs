namespace StorageEngine.Tests.Batch;

/// <summary>
/// A write batch applied to a tree leaves it exactly as applying its operations one by one in the order they
/// were added: checked against a model on random batches of puts and deletes with repeated keys, on integer and
/// byte-string trees, with overflow values; a batch that fails its checks changes nothing.
/// </summary>
public sealed class BatchWriteTests : IDisposable
{
    private readonly StorageEnvironment _env = StorageEnvironment.CreateInMemory();

    public void Dispose() => _env.Dispose();

    private static void AssertTreeIs(SortedDictionary<byte[], byte[]> model, Tree tree)
    {
        var actual = Unit.TestData.Scan(tree);
        Assert.Equal(model.Count, actual.Count);
        Assert.Equal(model.Count, tree.Count);
        int i = 0;
        foreach (var (key, value) in model)
        {
            Assert.True(key.AsSpan().SequenceEqual(actual[i].Key), $"key {i}");
            Assert.True(value.AsSpan().SequenceEqual(actual[i].Value), $"value of key {i}");
            i++;
        }
    }

    [Theory]
    [InlineData(1, 0.0)]
    [InlineData(500, 0.2)]
    [InlineData(20_000, 0.3)]
    public void Random_integer_batches_with_repeated_keys_match_one_by_one_application(int operations, double deleteShare)
    {
        var random = new Random(operations);
        var model = new SortedDictionary<byte[], byte[]>(Unit.ByteArrayComparer.Instance);
        using var tx = _env.BeginWrite();
        var tree = tx.CreateTree("ints", TreeOptions.Int64Keys);
        var batch = new WriteBatch();
        for (int round = 0; round < 3; round++)
        {
            batch.Clear();
            for (int i = 0; i < operations; i++)
            {
                long key = random.Next(-operations, operations);
                var encoded = new byte[8];
                Int64Key.Write(encoded, key);
                if (random.NextDouble() < deleteShare)
                {
                    batch.Delete(key);
                    model.Remove(encoded);
                }
                else
                {
                    var value = new byte[random.Next(0, random.Next(10) == 0 ? 3_000 : 40)];
                    random.NextBytes(value);
                    batch.Put(key, value);
                    model[encoded] = value;
                }
            }
            tree.Apply(batch);
            AssertTreeIs(model, tree);
        }
        tx.Commit();
        using var read = _env.BeginRead();
        AssertTreeIs(model, read.OpenTree("ints"));
        Unit.TestData.AssertHealthy(_env);
    }

    [Fact]
    public void Byte_string_batches_with_shared_prefixes_match_one_by_one_application()
    {
        var random = new Random(5);
        byte[] RandomKey() => Enumerable.Range(0, random.Next(1, 30)).Select(_ => (byte)('a' + random.Next(3))).ToArray();
        var model = new SortedDictionary<byte[], byte[]>(Unit.ByteArrayComparer.Instance);
        using var tx = _env.BeginWrite();
        var tree = tx.CreateTree("bytes");
        var batch = new WriteBatch();
        for (int round = 0; round < 4; round++)
        {
            batch.Clear();
            for (int i = 0; i < 3_000; i++)
            {
                var key = RandomKey();
                if (random.Next(4) == 0)
                {
                    batch.Delete(key);
                    model.Remove(key);
                }
                else
                {
                    var value = new byte[random.Next(0, 100)];
                    random.NextBytes(value);
                    batch.Put(key, value);
                    model[key] = value;
                }
            }
            tree.Apply(batch);
            AssertTreeIs(model, tree);
        }
    }

    [Fact]
    public void Already_sorted_input_is_applied_in_order()
    {
        using var tx = _env.BeginWrite();
        var tree = tx.CreateTree("ints", TreeOptions.Int64Keys);
        var batch = new WriteBatch();
        for (long key = 0; key < 10_000; key++) batch.Put(key, BitConverter.GetBytes(key));
        batch.Put(9_999, "last"u8);
        tree.Apply(batch);
        Assert.Equal(10_000, tree.Count);
        Assert.True(tree.TryGet(9_999, out var last) && last.SequenceEqual("last"u8));
        Assert.True(tree.TryGet(1_234, out var middle) && BitConverter.ToInt64(middle) == 1_234);
    }

    [Fact]
    public void A_delete_after_a_put_of_the_same_key_wins_and_a_put_after_a_delete_wins()
    {
        using var tx = _env.BeginWrite();
        var tree = tx.CreateTree("t");
        tree.Put("kept"u8, "old"u8);
        var batch = new WriteBatch();
        batch.Put("gone"u8, "1"u8);
        batch.Put("kept"u8, "2"u8);
        batch.Delete("gone"u8);
        batch.Delete("kept"u8);
        batch.Put("kept"u8, "3"u8);
        tree.Apply(batch);
        Assert.False(tree.ContainsKey("gone"u8));
        Assert.True(tree.TryGet("kept"u8, out var value) && value.SequenceEqual("3"u8));
        Assert.Equal(5, batch.Count); // the batch is left as it was
    }

    [Fact]
    public void A_batch_with_a_bad_key_throws_ArgumentException_and_changes_nothing()
    {
        using var tx = _env.BeginWrite();
        var bytes = tx.CreateTree("bytes");
        var ints = tx.CreateTree("ints", TreeOptions.Int64Keys);
        var batch = new WriteBatch();
        batch.Put("fine"u8, "v"u8);
        batch.Put(new byte[_env.MaxKeySize + 1], "v"u8);
        var e = Assert.Throws<ArgumentException>(() => bytes.Apply(batch));
        Assert.Contains(_env.MaxKeySize.ToString(), e.Message);
        Assert.Equal(0, bytes.Count);

        batch.Clear();
        batch.Put(1, "v"u8);
        batch.Put("short"u8, "v"u8);
        Assert.Throws<ArgumentException>(() => ints.Apply(batch));
        Assert.Equal(0, ints.Count);

        Assert.Throws<ArgumentException>(() => batch.Put(ReadOnlySpan<byte>.Empty, "v"u8));
        Assert.Throws<ArgumentException>(() => batch.Delete(ReadOnlySpan<byte>.Empty));
        Assert.Throws<ArgumentNullException>(() => bytes.Apply(null!));

        // Checks made before any change leave the transaction usable.
        batch.Clear();
        batch.Put("fine"u8, "v"u8);
        bytes.Apply(batch);
        tx.Commit();
        using var read = _env.BeginRead();
        Assert.Equal(1, read.OpenTree("bytes").Count);
    }

    [Fact]
    public void Applying_in_a_read_transaction_throws_InvalidOperationException()
    {
        using (var tx = _env.BeginWrite())
        {
            tx.CreateTree("t");
            tx.Commit();
        }
        using var read = _env.BeginRead();
        var batch = new WriteBatch();
        batch.Put("k"u8, "v"u8);
        Assert.Throws<InvalidOperationException>(() => read.OpenTree("t").Apply(batch));
    }
}
