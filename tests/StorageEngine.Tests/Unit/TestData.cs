using System.Text;

namespace StorageEngine.Tests.Unit;

/// <summary>Deterministic keys, values and environments for the unit tests.</summary>
internal static class TestData
{
    /// <summary>A 98-byte key: a long shared prefix makes separators long, so branch pages fill and trees grow deep quickly.</summary>
    public static byte[] LongKey(int i) => Encoding.ASCII.GetBytes(new string('p', 90) + i.ToString("D8"));

    /// <summary>A short key whose bytewise order is the numeric order of <paramref name="i"/> (for non-negative i).</summary>
    public static byte[] Key(int i) => Encoding.ASCII.GetBytes("k" + i.ToString("D8"));

    public static byte[] Utf8(string s) => Encoding.UTF8.GetBytes(s);

    /// <summary>A value of <paramref name="length"/> bytes that differs for each seed, so misplaced values are caught.</summary>
    public static byte[] Value(int seed, int length)
    {
        var value = new byte[length];
        uint x = (uint)seed * 2654435761u + 12345u;
        for (int i = 0; i < length; i++)
        {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            value[i] = (byte)x;
        }
        return value;
    }

    public static int[] Shuffled(int count, int seed)
    {
        var order = Enumerable.Range(0, count).ToArray();
        new Random(seed).Shuffle(order);
        return order;
    }

    /// <summary>Options for a durable (journaled) environment on an in-memory file system.</summary>
    public static StorageEnvironmentOptions SafeOptions(StorageEngine.Platform.MemoryFileSystem fs, string path = "/db") => new()
    {
        Path = path,
        Durability = DurabilityMode.Safe,
        FileSystem = fs,
        JournalFileSize = 4L << 20,
    };

    /// <summary>Every entry of the tree in cursor order, copied.</summary>
    public static List<(byte[] Key, byte[] Value)> Scan(Tree tree, KeyRange range = default)
    {
        var entries = new List<(byte[], byte[])>();
        using var cursor = tree.CreateCursor(range);
        for (bool ok = cursor.First(); ok; ok = cursor.Next()) entries.Add((cursor.Key.ToArray(), cursor.Value.ToArray()));
        return entries;
    }

    /// <summary>Every entry of the tree in reverse cursor order, copied.</summary>
    public static List<byte[]> ScanKeysBackward(Tree tree, KeyRange range = default)
    {
        var keys = new List<byte[]>();
        using var cursor = tree.CreateCursor(range);
        for (bool ok = cursor.Last(); ok; ok = cursor.Previous()) keys.Add(cursor.Key.ToArray());
        return keys;
    }

    /// <summary>Equal sequences of byte strings; much faster than Assert.Equal's structural comparison, and names the first difference.</summary>
    public static void AssertSameBytes(IEnumerable<byte[]> expected, IEnumerable<byte[]> actual)
    {
        var e = expected.ToList();
        var a = actual.ToList();
        for (int i = 0; i < Math.Min(e.Count, a.Count); i++)
        {
            if (!e[i].AsSpan().SequenceEqual(a[i]))
                Assert.Fail($"item {i} differs: expected {Convert.ToHexString(e[i].AsSpan(0, Math.Min(e[i].Length, 32)))}..., got {Convert.ToHexString(a[i].AsSpan(0, Math.Min(a[i].Length, 32)))}...");
        }
        Assert.Equal(e.Count, a.Count);
    }

    public static void AssertHealthy(StorageEnvironment env)
    {
        var report = env.Check();
        Assert.True(report.IsHealthy, report.ToString());
    }
}
