using StorageEngine.Platform;

namespace StorageEngine.Tests.Unit;

/// <summary>Values of every size (empty, inline, overflow) and keys at both size limits.</summary>
public sealed class BTreeValueTests
{
    private static void AssertValue(Tree tree, byte[] key, byte[] expected)
    {
        Assert.True(tree.TryGet(key, out var value), "the key is missing");
        Assert.Equal(expected.Length, value.Length);
        Assert.True(value.SequenceEqual(expected), "the value differs");
    }

    [Theory]
    [InlineData(100, 100)]
    [InlineData(100, 10)]
    [InlineData(10, 300)]
    [InlineData(500, 5000)]
    [InlineData(5000, 500)]
    [InlineData(5000, 9000)]
    [InlineData(9000, 0)]
    public void Overwriting_a_value_replaces_it_whatever_the_sizes(int oldSize, int newSize)
    {
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (int i = 0; i < 200; i++) tree.Put(TestData.Key(i), TestData.Value(i, oldSize));
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("t");
            for (int i = 0; i < 200; i += 2) tree.Put(TestData.Key(i), TestData.Value(-i, newSize));
            Assert.Equal(200, tree.Count);
            tx.Commit();
        }
        using (var rtx = env.BeginRead())
        {
            var tree = rtx.OpenTree("t");
            Assert.Equal(200, tree.Count);
            for (int i = 0; i < 200; i++) AssertValue(tree, TestData.Key(i), i % 2 == 0 ? TestData.Value(-i, newSize) : TestData.Value(i, oldSize));
        }
        TestData.AssertHealthy(env);
    }

    [Fact]
    public void Overwriting_with_a_same_size_value_twice_in_one_transaction_keeps_the_last()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        tree.Put("k"u8, "aaaa"u8);
        tree.Put("k"u8, "bbbb"u8);
        tree.Put("k"u8, "cccc"u8);
        Assert.Equal("cccc"u8.ToArray(), tree.Get("k"u8));
        Assert.Equal(1, tree.Count);
    }

    [Fact]
    public void Empty_values_are_stored_and_distinct_from_absent_keys()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (int i = 0; i < 1000; i++) tree.Put(TestData.Key(i), ReadOnlySpan<byte>.Empty);
            tree.Put("x"u8, "not empty"u8);
            tree.Put("x"u8, ReadOnlySpan<byte>.Empty);
            tx.Commit();
        }
        using (var rtx = env.BeginRead())
        {
            var tree = rtx.OpenTree("t");
            Assert.Equal(1001, tree.Count);
            Assert.True(tree.TryGet(TestData.Key(500), out var value));
            Assert.Equal(0, value.Length);
            Assert.Equal(Array.Empty<byte>(), tree.Get("x"u8));
            Assert.True(tree.ContainsKey(TestData.Key(999)));
            Assert.False(tree.ContainsKey(TestData.Key(1000)));
            Assert.Null(tree.Get(TestData.Key(1000)));
        }
        TestData.AssertHealthy(env);
    }

    [Fact]
    public void Every_one_byte_key_is_stored_in_unsigned_byte_order()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        foreach (int b in TestData.Shuffled(256, seed: 5)) tree.Put([(byte)b], TestData.Value(b, 30));

        var scanned = TestData.Scan(tree);
        Assert.Equal(Enumerable.Range(0, 256).Select(b => (byte)b), scanned.Select(e => Assert.Single(e.Key)));
        foreach (var (key, value) in scanned) Assert.Equal(TestData.Value(key[0], 30), value);
        tx.Commit();
        TestData.AssertHealthy(env);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Keys_of_the_maximum_size_split_and_merge_correctly(bool sharedPrefix)
    {
        // With a shared prefix the separators are nearly as long as the keys, so branch pages hold few entries.
        using var env = StorageEnvironment.CreateInMemory();
        int max = env.MaxKeySize;
        Assert.True(max >= 1000, $"MaxKeySize is {max}");
        var random = new Random(9);
        var model = new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance);
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (int i = 0; i < 300; i++)
            {
                var key = new byte[max];
                random.NextBytes(sharedPrefix ? key.AsSpan(max - 8) : key);
                var value = TestData.Value(i, i % 3 == 0 ? 0 : 50);
                tree.Put(key, value);
                model[key] = value;
            }
            // Random keys differ in their first bytes, so separators are short and branches wide.
            Assert.True(tree.BTree.Header.Depth >= (sharedPrefix ? 3 : 2), $"depth is only {tree.BTree.Header.Depth}");
            tx.Commit();
        }
        using (var rtx = env.BeginRead())
        {
            var tree = rtx.OpenTree("t");
            var scanned = TestData.Scan(tree);
            TestData.AssertSameBytes(model.Keys, scanned.Select(e => e.Key));
            TestData.AssertSameBytes(model.Values, scanned.Select(e => e.Value));
        }
        TestData.AssertHealthy(env);

        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("t");
            foreach (var key in model.Keys.Where((_, i) => i % 10 != 0).ToList())
            {
                Assert.True(tree.Delete(key));
                model.Remove(key);
            }
            TestData.AssertSameBytes(model.Keys, TestData.Scan(tree).Select(e => e.Key));
            tx.Commit();
        }
        TestData.AssertHealthy(env);
    }

    [Theory]
    [InlineData(1024)]
    [InlineData(1320)]
    [InlineData(1335)]
    [InlineData(1336)]
    [InlineData(1337)]
    [InlineData(1350)]
    [InlineData(4095)]
    [InlineData(4096)]
    [InlineData(4097)]
    [InlineData(100_000)]
    public void Values_around_and_beyond_the_inline_threshold_round_trip(int size)
    {
        // With 4 KB pages and 8-byte keys, values over 1336 bytes (an entry over a third of a page) move to overflow pages.
        var fs = new MemoryFileSystem();
        var options = TestData.SafeOptions(fs);
        using (var env = StorageEnvironment.Open(options))
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("t");
            for (int i = 0; i < 20; i++) tree.Put(TestData.Key(i), TestData.Value(i + size, size));
            for (int i = 0; i < 20; i++) AssertValue(tree, TestData.Key(i), TestData.Value(i + size, size));
            tx.Commit();
        }
        using (var env = StorageEnvironment.Open(options))
        {
            using (var rtx = env.BeginRead())
            {
                var tree = rtx.OpenTree("t");
                for (int i = 0; i < 20; i++) AssertValue(tree, TestData.Key(i), TestData.Value(i + size, size));
                var scanned = TestData.Scan(tree);
                Assert.Equal(20, scanned.Count);
                Assert.All(scanned, e => Assert.Equal(size, e.Value.Length));
            }
            TestData.AssertHealthy(env);
        }
    }

    [Fact]
    public void Values_over_the_inline_threshold_use_overflow_pages()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        tree.Put(TestData.Key(1), new byte[1024]);
        Assert.Equal(0, tree.BTree.Header.OverflowPages);
        tree.Put(TestData.Key(2), new byte[1400]);
        Assert.Equal(1, tree.BTree.Header.OverflowPages);
        tree.Put(TestData.Key(3), new byte[100_000]);
        Assert.Equal(1 + 25, tree.BTree.Header.OverflowPages);
    }

    [Fact]
    public void Replacing_and_deleting_overflow_values_frees_their_pages()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("small"u8, "x"u8);
            tx.Commit();
        }
        long baseline = env.Check().PagesInUse;

        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("t");
            tree.Put("big1"u8, TestData.Value(1, 100_000));
            tree.Put("big2"u8, TestData.Value(2, 100_000));
            tx.Commit();
        }
        var withBig = env.Check();
        Assert.True(withBig.IsHealthy, withBig.ToString());
        Assert.True(withBig.PagesInUse >= baseline + 50, withBig.ToString());

        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("t");
            tree.Put("big1"u8, "now small"u8);
            Assert.True(tree.Delete("big2"u8));
            tx.Commit();
        }
        var after = env.Check();
        Assert.True(after.IsHealthy, after.ToString());
        Assert.Equal(baseline, after.PagesInUse);
        Assert.Equal(after.PageCount, after.PagesInUse + after.FreePages);
        using (var rtx = env.BeginRead()) Assert.Equal("now small"u8.ToArray(), rtx.OpenTree("t").Get("big1"u8));

        // The freed run is reused rather than the file growing.
        using (var tx = env.BeginWrite())
        {
            tx.OpenTree("t").Put("big3"u8, TestData.Value(3, 100_000));
            tx.Commit();
        }
        var reused = env.Check();
        Assert.True(reused.IsHealthy, reused.ToString());
        Assert.Equal(after.PageCount, reused.PageCount);
    }

    [Fact]
    public void Overflow_value_replaced_by_another_overflow_value_in_the_same_transaction_leaks_nothing()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (int size = 2000; size <= 40_000; size += 2000) tree.Put("v"u8, TestData.Value(size, size));
            tx.Commit();
        }
        var report = env.Check();
        Assert.True(report.IsHealthy, report.ToString());
        using var rtx = env.BeginRead();
        Assert.Equal(TestData.Value(40_000, 40_000), rtx.OpenTree("t").Get("v"u8));
    }

    [Theory]
    [InlineData(4096)]
    [InlineData(8192)]
    [InlineData(16384)]
    [InlineData(32768)]
    public void A_free_space_section_holds_the_largest_value_as_one_run(int pageSize)
    {
        // An overflow value is one contiguous run and a run cannot cross a section's bitmap.
        Assert.True(StorageEngine.Paging.FreeSpaceMap.MaxRunPages(pageSize) * pageSize >= StorageEnvironment.MaxValueSize);
    }

    [Fact]
    public void A_value_over_the_maximum_size_is_rejected_before_anything_changes()
    {
        using var env = StorageEnvironment.CreateInMemory();
        var value = GC.AllocateUninitializedArray<byte>(StorageEnvironment.MaxValueSize + 1);
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        tree.Put("k"u8, "old"u8);

        var e = Assert.Throws<ArgumentException>(() => tree.Put("k"u8, value));
        Assert.Contains("most is", e.Message);
        Assert.Equal("old"u8.ToArray(), tree.Get("k"u8));
    }

    [Fact]
    public void A_256_MB_value_fits_an_environment_with_default_4_KB_pages()
    {
        using var env = StorageEnvironment.CreateInMemory();
        var value = GC.AllocateUninitializedArray<byte>(256 << 20);
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put("big"u8, value);
        Assert.True(tx.OpenTree("t").TryGet("big"u8, out var read));
        Assert.Equal(value.Length, read.Length);
    }

    [Fact]
    public void A_256_MB_value_round_trips_through_a_durable_environment_on_disk()
    {
        // Default 4 KB pages: the run crosses several free-space sections' worth of pages. A few seconds of disk writes.
        using var dir = new TempDirectory("bigvalue");
        var value = TestData.Value(256, 256 << 20);
        var options = new StorageEnvironmentOptions { Path = dir.Path };
        using (var env = StorageEnvironment.Open(options))
        {
            using (var tx = env.BeginWrite())
            {
                tx.CreateTree("t").Put("big"u8, value);
                tx.Commit();
            }
            using var rtx = env.BeginRead();
            Assert.True(rtx.OpenTree("t").TryGet("big"u8, out var read));
            Assert.True(read.SequenceEqual(value));
        }
        using (var env = StorageEnvironment.Open(options))
        {
            using (var rtx = env.BeginRead())
            {
                Assert.True(rtx.OpenTree("t").TryGet("big"u8, out var read));
                Assert.True(read.SequenceEqual(value));
            }
            using (var tx = env.BeginWrite())
            {
                Assert.True(tx.OpenTree("t").Delete("big"u8));
                tx.Commit();
            }
            var report = env.Check();
            Assert.True(report.IsHealthy, report.ToString());
            Assert.True(report.FreePages >= (256 << 20) / env.PageSize, report.ToString());
        }
    }
}
