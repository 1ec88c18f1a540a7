namespace StorageEngine.Tests.Batch;

/// <summary>
/// A leaf directory routes every key as the tree does; lookups with leaf hints return what GetMany returns whatever
/// the hints say; a directory is refused by any snapshot, tree or transaction other than the one it describes.
/// </summary>
public sealed class LeafDirectoryTests : IDisposable
{
    private readonly StorageEnvironment _env = StorageEnvironment.CreateInMemory();

    public void Dispose() => _env.Dispose();

    private void FillIntegers(long from, long count)
    {
        using var tx = _env.BeginWrite();
        var tree = tx.CreateTree("ints", TreeOptions.Int64Keys);
        for (long key = from; key < from + count; key++) tree.Put(2 * key, BitConverter.GetBytes(key));
        tx.Commit();
    }

    /// <summary>The last leaf whose prefix is at most the key's: what a device computes.</summary>
    private static int[] PrefixSearch(LeafDirectory directory, IEnumerable<ulong> probes)
    {
        var prefixes = directory.Prefixes.ToArray();
        return probes.Select(p =>
        {
            int index = Array.BinarySearch(prefixes, p);
            if (index < 0) return Math.Max(0, ~index - 1);
            while (index + 1 < prefixes.Length && prefixes[index + 1] == p) index++;
            return index;
        }).ToArray();
    }

    [Fact]
    public void Integer_lookups_with_exact_wrong_and_out_of_range_hints_match_GetMany()
    {
        FillIntegers(0, 30_000);
        var random = new Random(1);
        var keys = Enumerable.Range(0, 20_000).Select(_ => random.NextInt64(-5, 60_005)).ToArray();
        using var tx = _env.BeginRead();
        var tree = tx.OpenTree("ints");
        var directory = tree.GetLeafDirectory();
        Assert.True(directory.PrefixesAreExact);
        Assert.Equal(tree.GetStatistics().LeafPages, directory.LeafCount);
        var expected = new BatchLookupResults();
        tree.GetMany(keys, expected);

        var exact = PrefixSearch(directory, keys.Select(k => (ulong)k ^ 0x8000_0000_0000_0000UL));
        foreach (var hints in new[] { exact, new int[keys.Length], keys.Select(_ => random.Next(-3, directory.LeafCount + 3)).ToArray() })
        {
            var actual = new BatchLookupResults();
            tree.GetMany(keys, directory, hints, actual);
            BatchResultsAssert.Same(expected, actual);
        }
    }

    [Fact]
    public void Byte_string_lookups_settle_prefix_ties_and_match_GetMany()
    {
        var random = new Random(2);
        byte[] RandomKey() => Enumerable.Range(0, random.Next(1, 24)).Select(_ => (byte)('a' + random.Next(2))).ToArray();
        using (var tx = _env.BeginWrite())
        {
            var tree = tx.CreateTree("bytes");
            for (int i = 0; i < 20_000; i++) tree.Put(RandomKey(), BitConverter.GetBytes(i));
            tx.Commit();
        }
        var keys = Enumerable.Range(0, 5_000).Select(_ => (ReadOnlyMemory<byte>)RandomKey()).ToArray();
        using var read = _env.BeginRead();
        var bytes = read.OpenTree("bytes");
        var directory = bytes.GetLeafDirectory();
        Assert.False(directory.PrefixesAreExact);
        var expected = new BatchLookupResults();
        bytes.GetMany(keys, expected);
        var hints = PrefixSearch(directory, keys.Select(k => Tree.BatchKeyPrefix(k.Span)));
        var actual = new BatchLookupResults();
        bytes.GetMany(keys, directory, hints, actual);
        BatchResultsAssert.Same(expected, actual);
    }

    [Fact]
    public void Byte_string_lookups_split_across_workers_match_GetMany_whatever_the_hints()
    {
        var random = new Random(3);
        byte[] RandomKey() => Enumerable.Range(0, random.Next(1, 24)).Select(_ => (byte)('a' + random.Next(2))).ToArray();
        using (var tx = _env.BeginWrite())
        {
            var tree = tx.CreateTree("bytes");
            for (int i = 0; i < 20_000; i++) tree.Put(RandomKey(), BitConverter.GetBytes(i));
            tx.Commit();
        }
        // 3 slices of at least 16K keys, each read on its own thread.
        var keys = Enumerable.Range(0, 50_000).Select(_ => (ReadOnlyMemory<byte>)RandomKey()).ToArray();
        using var read = _env.BeginRead();
        var bytes = read.OpenTree("bytes");
        var directory = bytes.GetLeafDirectory();
        var expected = new BatchLookupResults();
        bytes.GetMany(keys, expected);
        var exact = PrefixSearch(directory, keys.Select(k => Tree.BatchKeyPrefix(k.Span)));
        foreach (var hints in new[] { exact, keys.Select(_ => random.Next(-3, directory.LeafCount + 3)).ToArray() })
        {
            var actual = new BatchLookupResults { MaxParallelism = 3 };
            bytes.GetMany(keys, directory, hints, actual);
            Assert.Equal(keys.Length, actual.Count);
            BatchResultsAssert.Same(expected, actual);
        }
    }

    [Fact]
    public void A_directory_of_another_snapshot_tree_or_a_changed_write_transaction_is_refused()
    {
        FillIntegers(0, 1_000);
        LeafDirectory old;
        using (var tx = _env.BeginRead()) old = tx.OpenTree("ints").GetLeafDirectory();
        FillIntegers(1_000, 1_000);
        var results = new BatchLookupResults();
        using (var tx = _env.BeginRead())
        {
            var tree = tx.OpenTree("ints");
            Assert.False(old.IsCurrentFor(tree));
            var e = Assert.Throws<ArgumentException>(() => tree.GetMany([2], old, [0], results));
            Assert.Contains("snapshot", e.Message);
            Assert.True(tree.GetLeafDirectory().IsCurrentFor(tree));
        }
        using (var tx = _env.BeginWrite())
        {
            var tree = tx.OpenTree("ints");
            var other = tx.CreateTree("other", TreeOptions.Int64Keys);
            var directory = tree.GetLeafDirectory();
            Assert.Throws<ArgumentException>(() => other.GetMany([2], directory, [0], results));
            tree.GetMany([2], directory, [0], results);
            Assert.True(results.IsFound(0));
            tree.Put(3, "v"u8);
            Assert.False(directory.IsCurrentFor(tree));
            Assert.Throws<ArgumentException>(() => tree.GetMany([2], directory, [0], results));
            Assert.Throws<ArgumentException>(() => tree.GetMany([2, 4], tree.GetLeafDirectory(), [0], results));
        }
    }
}
