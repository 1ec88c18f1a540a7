namespace StorageEngine.Peers.Tests;

/// <summary>
/// A seeded random sequence of every operation, checked step by step against <see cref="Oracle"/>: keys of 1 to
/// 40 random bytes (so prefixes and bytes above 0x7F occur) mixed with 8-byte big-endian integers from a small
/// range (so overwrites and deletes hit present keys), values of 1 byte to 3 KiB.
/// </summary>
public sealed class RandomizedOracleTests
{
    private const int Operations = 2500;

    /// <summary>Every available (engine, tier) with two fixed seeds.</summary>
    public static TheoryData<string, DurabilityTier, int> Cases()
    {
        var data = new TheoryData<string, DurabilityTier, int>();
        foreach (var row in EngineCases.All)
            foreach (int seed in new[] { 1, 2 })
                data.Add((string)row[0], (DurabilityTier)row[1], seed);
        return data;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void A_random_sequence_of_operations_agrees_with_a_sorted_dictionary(string engine, DurabilityTier tier, int seed)
    {
        using var dir = new TempDirectory();
        using var store = EngineCases.Open(engine, tier, dir.Path);
        var oracle = new Oracle();
        var random = new Random(seed);
        var known = new List<byte[]>();
        bool scans = true;
        var destination = new byte[4096];

        byte[] AnyKey()
        {
            int pick = random.Next(10);
            if (pick < 4 && known.Count > 0) return known[random.Next(known.Count)];
            if (pick < 7) return Keys.Int((ulong)random.Next(400));
            if (pick < 8 && known.Count > 0)
            {
                // A prefix or an extension of a key seen before: the neighbours a bytewise order must get right.
                var near = known[random.Next(known.Count)];
                return random.Next(2) == 0 && near.Length > 1 ? near[..random.Next(1, near.Length)] : [.. near, (byte)random.Next(256)];
            }
            var key = new byte[random.Next(1, 41)];
            random.NextBytes(key);
            return key;
        }

        for (int op = 0; op < Operations; op++)
        {
            string Where() => $"{engine} {tier} seed {seed} operation {op}";
            int kind = random.Next(100);
            if (kind < 30)
            {
                var puts = new Dictionary<string, (byte[] Key, byte[] Value)>();
                int count = random.Next(1, 9);
                while (puts.Count < count)
                {
                    var key = AnyKey();
                    var value = new byte[random.Next(20) == 0 ? random.Next(1000, 3073) : random.Next(1, 200)];
                    random.NextBytes(value);
                    puts[Keys.Hex(key)] = (key, value);
                }
                store.Put(puts.Values.ToArray());
                foreach (var (key, value) in puts.Values)
                {
                    oracle.Put(key, value);
                    known.Add(key);
                }
            }
            else if (kind < 40)
            {
                var keys = Enumerable.Range(0, random.Next(1, 6)).Select(_ => AnyKey()).DistinctBy(Keys.Hex).ToArray();
                store.Delete(keys);
                foreach (var key in keys) oracle.Delete(key);
            }
            else if (kind < 65)
            {
                var key = AnyKey();
                var expected = oracle.Get(key);
                int room = random.Next(4) == 0 ? random.Next(0, 64) : destination.Length;
                Array.Clear(destination);
                int length = store.Get(key, destination.AsSpan(0, room));
                Assert.True((expected?.Length ?? -1) == length,
                    $"{Where()}: Get({Keys.Hex(key)}) returned {length}, expected {expected?.Length ?? -1}");
                if (expected is not null)
                {
                    int copied = Math.Min(room, expected.Length);
                    Assert.True(expected.AsSpan(0, copied).SequenceEqual(destination.AsSpan(0, copied)),
                        $"{Where()}: Get({Keys.Hex(key)}) copied different bytes into a {room}-byte destination");
                }
            }
            else if (kind < 75)
            {
                var keys = Enumerable.Range(0, random.Next(0, 12)).Select(_ => AnyKey()).DistinctBy(Keys.Hex).ToArray();
                int expected = keys.Count(k => oracle.Get(k) is not null);
                int found = store.CountFound(keys);
                Assert.True(expected == found, $"{Where()}: GetBatch of {keys.Length} keys found {found}, expected {expected}");
            }
            else if (scans)
            {
                byte[] start = random.Next(5) == 0 ? [] : AnyKey();
                int count = random.Next(4) == 0 ? int.MaxValue : random.Next(0, 60);
                bool backward = random.Next(2) == 0;
                if (store.TryScan(start, count, backward) is not { } visited)
                {
                    scans = false;
                    continue;
                }
                int expected = oracle.ScanCount(start, count, backward);
                Assert.True(expected == visited,
                    $"{Where()}: Scan({Keys.Hex(start)}, {count}, backward: {backward}) visited {visited}, expected {expected} of {oracle.Count}");
            }
        }

        foreach (var key in oracle.Keys)
        {
            var value = store.ValueOf(key);
            Assert.True(value is not null && value.AsSpan().SequenceEqual(oracle.Get(key)),
                $"{engine} {tier} seed {seed}: at the end {Keys.Hex(key)} should hold {oracle.Get(key)!.Length} bytes");
        }
        if (scans)
        {
            Assert.Equal(oracle.Count, store.Scan([], int.MaxValue));
            Assert.Equal(oracle.Count, store.Scan([], int.MaxValue, backward: true));
        }
    }
}
