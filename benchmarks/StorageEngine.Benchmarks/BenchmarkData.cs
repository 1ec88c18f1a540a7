using System.Buffers.Binary;

namespace StorageEngine.Benchmarks;

/// <summary>
/// Keys and values of the benchmarks, computed from an item number. Keys are 16 bytes: the item number
/// big-endian (so item order is key order), then 8 bytes of a hash of it.
/// </summary>
public static class BenchmarkData
{
    public const int KeySize = 16;

    public static void WriteKey(long item, Span<byte> key)
    {
        BinaryPrimitives.WriteUInt64BigEndian(key, (ulong)item);
        BinaryPrimitives.WriteUInt64BigEndian(key[8..], Mix((ulong)item));
    }

    public static byte[] Key(long item)
    {
        var key = new byte[KeySize];
        WriteKey(item, key);
        return key;
    }

    /// <summary>Fills <paramref name="value"/> with bytes that depend on the item (incompressible enough).</summary>
    public static void WriteValue(long item, Span<byte> value)
    {
        ulong state = (ulong)item;
        for (int i = 0; i < value.Length; i++)
        {
            if ((i & 7) == 0) state = Mix(state);
            value[i] = (byte)(state >> ((i & 7) * 8));
        }
    }

    /// <summary>
    /// Where the benchmarks put their files: $STORAGEENGINE_BENCH_DIR, else the system temp directory.
    /// Durable-write numbers depend on that disk; the benchmarks print it.
    /// </summary>
    public static string NewDirectory(string name)
    {
        string root = Environment.GetEnvironmentVariable("STORAGEENGINE_BENCH_DIR") ?? Path.GetTempPath();
        string directory = Path.Combine(root, $"storageengine-bench-{name}-{Environment.ProcessId}");
        if (Directory.Exists(directory)) Directory.Delete(directory, recursive: true);
        Directory.CreateDirectory(directory);
        return directory;
    }

    private static ulong Mix(ulong x)
    {
        x += 0x9E3779B97F4A7C15UL;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
        return x ^ (x >> 31);
    }
}
