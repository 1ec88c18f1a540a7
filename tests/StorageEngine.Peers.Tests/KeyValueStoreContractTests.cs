namespace StorageEngine.Peers.Tests;

/// <summary>
/// The <see cref="IKeyValueStore"/> contract, one behaviour per test, on every engine that runs here at every tier
/// it offers, each in a fresh directory.
/// </summary>
public sealed class KeyValueStoreContractTests
{
    [Theory]
    [MemberData(nameof(EngineCases.All), MemberType = typeof(EngineCases))]
    public void WriteBatch_inserts_new_keys_and_overwrites_existing_ones(string engine, DurabilityTier tier)
    {
        using var dir = new TempDirectory();
        using var store = EngineCases.Open(engine, tier, dir.Path);

        store.Put((Keys.Text("a"), Keys.Value(1, 10)), (Keys.Text("b"), Keys.Value(2, 20)));
        store.Put((Keys.Text("a"), Keys.Value(3, 300)));
        Assert.Equal(Keys.Value(3, 300), store.ValueOf(Keys.Text("a")));
        Assert.Equal(Keys.Value(2, 20), store.ValueOf(Keys.Text("b")));

        store.Put((Keys.Text("a"), Keys.Value(4, 5)));
        Assert.Equal(Keys.Value(4, 5), store.ValueOf(Keys.Text("a")));
    }

    [Theory]
    [MemberData(nameof(EngineCases.All), MemberType = typeof(EngineCases))]
    public void WriteBatch_stores_an_empty_value_as_present_with_length_zero(string engine, DurabilityTier tier)
    {
        using var dir = new TempDirectory();
        using var store = EngineCases.Open(engine, tier, dir.Path);

        store.Put((Keys.Text("empty"), []));

        Assert.Equal(0, store.Get(Keys.Text("empty"), new byte[8]));
        Assert.Equal(1, store.CountFound(Keys.Text("empty")));
    }

    [Theory]
    [MemberData(nameof(EngineCases.All), MemberType = typeof(EngineCases))]
    public void DeleteBatch_removes_present_keys_and_ignores_absent_ones(string engine, DurabilityTier tier)
    {
        using var dir = new TempDirectory();
        using var store = EngineCases.Open(engine, tier, dir.Path);
        store.Delete(Keys.Text("never written"));
        store.Put((Keys.Int(1), Keys.Value(1, 8)), (Keys.Int(2), Keys.Value(2, 8)), (Keys.Int(3), Keys.Value(3, 8)));

        store.Delete(Keys.Int(2), Keys.Int(99), Keys.Text("absent"));
        store.Delete(Keys.Int(2));

        Assert.Null(store.ValueOf(Keys.Int(2)));
        Assert.Equal(Keys.Value(1, 8), store.ValueOf(Keys.Int(1)));
        Assert.Equal(Keys.Value(3, 8), store.ValueOf(Keys.Int(3)));
    }

    [Theory]
    [MemberData(nameof(EngineCases.All), MemberType = typeof(EngineCases))]
    public void Get_returns_the_value_length_and_a_copy_that_outlives_later_writes(string engine, DurabilityTier tier)
    {
        using var dir = new TempDirectory();
        using var store = EngineCases.Open(engine, tier, dir.Path);
        var value = Keys.Value(7, 1000);
        store.Put((Keys.Text("k"), value));

        var destination = new byte[4096];
        Assert.Equal(1000, store.Get(Keys.Text("k"), destination));
        store.Put((Keys.Text("k"), Keys.Value(8, 1000)));
        store.Delete(Keys.Text("k"));

        Assert.Equal(value, destination[..1000]);
    }

    [Theory]
    [MemberData(nameof(EngineCases.All), MemberType = typeof(EngineCases))]
    public void Get_of_an_absent_key_returns_minus_one(string engine, DurabilityTier tier)
    {
        using var dir = new TempDirectory();
        using var store = EngineCases.Open(engine, tier, dir.Path);
        Assert.Equal(-1, store.Get(Keys.Text("abc"), new byte[16]));

        store.Put((Keys.Text("abc"), Keys.Value(1, 4)));

        Assert.Equal(-1, store.Get(Keys.Text("ab"), new byte[16]));
        Assert.Equal(-1, store.Get(Keys.Text("abcd"), new byte[16]));
        Assert.Equal(-1, store.Get(Keys.Text("abd"), new byte[16]));
    }

    [Theory]
    [MemberData(nameof(EngineCases.All), MemberType = typeof(EngineCases))]
    public void Get_into_a_short_destination_copies_the_prefix_and_returns_the_full_length(string engine, DurabilityTier tier)
    {
        using var dir = new TempDirectory();
        using var store = EngineCases.Open(engine, tier, dir.Path);
        var value = Keys.Value(5, 500);
        store.Put((Keys.Text("k"), value));

        var shortDestination = new byte[37];
        Assert.Equal(500, store.Get(Keys.Text("k"), shortDestination));
        Assert.Equal(value[..37], shortDestination);
        Assert.Equal(500, store.Get(Keys.Text("k"), Span<byte>.Empty));
    }

    [Theory]
    [MemberData(nameof(EngineCases.All), MemberType = typeof(EngineCases))]
    public void GetBatch_counts_the_keys_found(string engine, DurabilityTier tier)
    {
        using var dir = new TempDirectory();
        using var store = EngineCases.Open(engine, tier, dir.Path);
        store.Put((Keys.Int(1), Keys.Value(1, 2000)), (Keys.Int(2), Keys.Value(2, 10)), (Keys.Int(3), Keys.Value(3, 10)));

        Assert.Equal(0, store.CountFound());
        Assert.Equal(2, store.CountFound(Keys.Int(1), Keys.Int(4), Keys.Int(3)));
        Assert.Equal(0, store.CountFound(Keys.Int(0), Keys.Text("x")));
        // A scratch buffer shorter than a value still counts it.
        Assert.Equal(3, store.GetBatch([Keys.Int(1), Keys.Int(2), Keys.Int(3)], new byte[16]));
    }

    [Theory]
    [MemberData(nameof(EngineCases.All), MemberType = typeof(EngineCases))]
    public void Scan_visits_up_to_count_entries_from_the_start_key_in_either_direction(string engine, DurabilityTier tier)
    {
        using var dir = new TempDirectory();
        using var store = EngineCases.Open(engine, tier, dir.Path);
        // 10, 20, ..., 100, and one key above 2^63: its first byte (0x80) would sort it first if compared signed.
        var keys = Enumerable.Range(1, 10).Select(i => Keys.Int((ulong)i * 10)).Append(Keys.Int(0x8000_0000_0000_0000)).ToArray();
        store.Put(keys.Select(k => (k, Keys.Value(k[7], 16))).ToArray());

        if (store.TryScan([], 1) is null)
        {
            // An engine without ordered scans must say so every time rather than visit entries in some order.
            Assert.Throws<NotSupportedException>(() => store.Scan(keys[0], 1, backward: true));
            return;
        }
        Assert.Equal(3, store.Scan([], 3));
        Assert.Equal(11, store.Scan([], 1000));
        Assert.Equal(11, store.Scan([], 1000, backward: true));
        Assert.Equal(0, store.Scan([], 0));
        Assert.Equal(7, store.Scan(Keys.Int(50), 1000));
        Assert.Equal(2, store.Scan(Keys.Int(50), 2));
        Assert.Equal(6, store.Scan(Keys.Int(55), 1000));
        Assert.Equal(1, store.Scan(Keys.Int(101), 1000));
        Assert.Equal(0, store.Scan(Keys.Int(0x8000_0000_0000_0001), 1000));
        Assert.Equal(5, store.Scan(Keys.Int(50), 1000, backward: true));
        Assert.Equal(5, store.Scan(Keys.Int(55), 1000, backward: true));
        Assert.Equal(10, store.Scan(Keys.Int(0x7FFF_FFFF_FFFF_FFFF), 1000, backward: true));
        Assert.Equal(0, store.Scan(Keys.Int(5), 1000, backward: true));
        // A start shorter than the keys sorts before every key that extends it.
        Assert.Equal(11, store.Scan([0x00], 1000));
        Assert.Equal(0, store.Scan([0x00], 1000, backward: true));
    }

    [Theory]
    [MemberData(nameof(EngineCases.All), MemberType = typeof(EngineCases))]
    public void Scan_of_an_empty_store_visits_nothing(string engine, DurabilityTier tier)
    {
        using var dir = new TempDirectory();
        using var store = EngineCases.Open(engine, tier, dir.Path);

        if (store.TryScan([], 10) is not { } forward)
        {
            Assert.Throws<NotSupportedException>(() => store.Scan([], 10, backward: true));
            return;
        }
        Assert.Equal(0, forward);
        Assert.Equal(0, store.Scan([], 10, backward: true));
        Assert.Equal(0, store.Scan(Keys.Int(1), 10));
        Assert.Equal(0, store.Scan(Keys.Int(1), 10, backward: true));
    }

    [Theory]
    [MemberData(nameof(EngineCases.Persistent), MemberType = typeof(EngineCases))]
    public void A_reopened_store_holds_what_was_committed_before_it_was_closed(string engine, DurabilityTier tier)
    {
        using var dir = new TempDirectory();
        var oracle = new Oracle();
        using (var store = EngineCases.Open(engine, tier, dir.Path))
        {
            var random = new Random(4242);
            for (int batch = 0; batch < 50; batch++)
            {
                var puts = Enumerable.Range(0, 10)
                    .Select(_ => Keys.Int((ulong)random.Next(300)))
                    .DistinctBy(Keys.Hex)
                    .Select(k => (k, Keys.Value(random.Next(), random.Next(1, 600))))
                    .ToArray();
                store.Put(puts);
                foreach (var (k, v) in puts) oracle.Put(k, v);
                var deleted = Keys.Int((ulong)random.Next(300));
                store.Delete(deleted);
                oracle.Delete(deleted);
            }
        }

        using var reopened = EngineCases.Open(engine, tier, dir.Path);

        for (ulong i = 0; i < 300; i++)
        {
            var key = Keys.Int(i);
            Assert.True(oracle.Get(key) is var expected && Equal(expected, reopened.ValueOf(key)),
                $"{engine} {tier}: key {i} after reopening should be {(expected is null ? "absent" : expected.Length + " bytes")}");
        }
        if (reopened.TryScan([], int.MaxValue) is { } all) Assert.Equal(oracle.Count, all);
    }

    private static bool Equal(byte[]? a, byte[]? b) => a is null ? b is null : b is not null && a.AsSpan().SequenceEqual(b);
}
