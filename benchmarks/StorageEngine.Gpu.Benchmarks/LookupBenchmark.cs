using System.Buffers.Binary;

namespace StorageEngine.Gpu.Benchmarks;

/// <summary>
/// Lookups per second of random batches (three quarters present) in a tree of 8-byte integer keys and in one of
/// 16-byte byte-string keys (an 8-byte big-endian number, then a fixed suffix: distinct prefixes, so the device
/// finds most leaves and the engine settles only keys tying with a bound): a TryGet loop, the engine's batch path on
/// all cores, and the device route; with the device's transfer share. Returns, per key kind, the smallest batch at
/// which the device route beat the all-core CPU path.
/// </summary>
internal static class LookupBenchmark
{
    private const int ByteKeySize = 16;
    private static readonly byte[] Suffix = "/profile"u8.ToArray();

    public static (long Ints, long Bytes) Run(GpuBackend device, long treeKeys, IReadOnlyList<int> batchSizes, int repeats)
    {
        string directory = Path.Combine(Path.GetTempPath(), $"storageengine-gpu-bench-{Environment.ProcessId}");
        Directory.CreateDirectory(directory);
        try
        {
            using var env = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = directory });
            Load(env, treeKeys);
            using var read = env.BeginRead();
            var ints = read.OpenTree("ints");
            var bytes = read.OpenTree("bytes");
            var random = new Random(7);
            var results = new BatchLookupResults();

            Console.WriteLine("-- 8-byte integer keys");
            Header();
            long intBreakEven = long.MaxValue;
            foreach (int size in batchSizes)
            {
                var keys = new long[size];
                for (int i = 0; i < size; i++) keys[i] = 2 * random.NextInt64(treeKeys) + (i % 4 == 3 ? 1 : 0);
                var loop = Measure.Best(() =>
                {
                    long sum = 0;
                    foreach (long key in keys)
                        if (ints.TryGet(key, out var v)) sum += v[0];
                    GC.KeepAlive(sum);
                }, repeats);
                var cpu = Measure.Best(() => ints.GetMany(keys, results), repeats);
                var (onDevice, transfer) = device.IsAccelerated ? (Measure.Best(() => device.GetMany(ints, keys, results), repeats), device.LastTransferTime) : default;
                if (device.IsAccelerated && onDevice < cpu && size < intBreakEven) intBreakEven = size;
                Row(device, size, loop, cpu, onDevice, transfer);
            }

            Console.WriteLine($"-- {ByteKeySize}-byte keys (8-byte big-endian number + \"/profile\")");
            Header();
            long byteBreakEven = long.MaxValue;
            foreach (int size in batchSizes)
            {
                // One array holds every probe key: a batch of millions of keys is not millions of objects.
                var buffer = new byte[(long)size * ByteKeySize];
                var keys = new ReadOnlyMemory<byte>[size];
                for (int i = 0; i < size; i++)
                {
                    var key = buffer.AsMemory(i * ByteKeySize, ByteKeySize);
                    ByteKey(2 * random.NextInt64(treeKeys) + (i % 4 == 3 ? 1 : 0), key.Span);
                    keys[i] = key;
                }
                var loop = Measure.Best(() =>
                {
                    long sum = 0;
                    foreach (var key in keys)
                        if (bytes.TryGet(key.Span, out var v)) sum += v[0];
                    GC.KeepAlive(sum);
                }, repeats);
                var cpu = Measure.Best(() => bytes.GetMany(keys, results), repeats);
                var (onDevice, transfer) = device.IsAccelerated ? (Measure.Best(() => device.GetMany(bytes, keys, results), repeats), device.LastTransferTime) : default;
                if (device.IsAccelerated && onDevice < cpu && size < byteBreakEven) byteBreakEven = size;
                Row(device, size, loop, cpu, onDevice, transfer);
            }
            if (device.IsAccelerated) RefreshAfterCommit(env, device, treeKeys);
            return (intBreakEven, byteBreakEven);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>
    /// What a small commit costs the device's copy of the integer tree's leaf directory: the leaf prefixes uploaded
    /// to bring it to the new snapshot against the whole directory, and the first batch's time after the commit
    /// (directory rebuilt on the host, refreshed on the device) against the next one's.
    /// </summary>
    private static void RefreshAfterCommit(StorageEnvironment env, GpuBackend device, long treeKeys)
    {
        const int Puts = 100;
        var random = new Random(9);
        var probes = new long[Math.Min(65_536, (int)Math.Min(int.MaxValue, treeKeys))];
        for (int i = 0; i < probes.Length; i++) probes[i] = 2 * random.NextInt64(treeKeys);
        var results = new BatchLookupResults();
        using (var before = env.BeginRead()) device.GetMany(before.OpenTree("ints"), probes, results);
        using (var tx = env.BeginWrite())
        {
            var ints = tx.OpenTree("ints");
            for (int i = 0; i < Puts; i++) ints.Put(2 * random.NextInt64(treeKeys) + 1, "new"u8);
            tx.Commit();
        }
        using var after = env.BeginRead();
        var tree = after.OpenTree("ints");
        var first = System.Diagnostics.Stopwatch.StartNew();
        device.GetMany(tree, probes, results);
        first.Stop();
        var directory = device.DeviceDirectory;
        if (device.LastLookupRoute != BatchRoute.Device || directory?.Directory is not { } current) return;
        long uploaded = directory.LastUploaded;
        var next = Measure.Best(() => device.GetMany(tree, probes, results), 1);
        Console.WriteLine($"-- device leaf directory after a commit of {Puts} scattered puts: {uploaded:N0} of {current.LeafCount:N0} leaf prefixes uploaded; " +
            $"{probes.Length:N0}-key batch {first.Elapsed.TotalMilliseconds:F2} ms with the refresh, {next.TotalMilliseconds:F2} ms after it");
    }

    /// <summary>Both trees, the same even numbers as keys, in ascending order (the fast way to load).</summary>
    private static void Load(StorageEnvironment env, long treeKeys)
    {
        Console.WriteLine($"loading {treeKeys:N0} keys into each tree...");
        var value = new byte[16];
        Span<byte> key = stackalloc byte[ByteKeySize];
        for (long first = 0; first < treeKeys; first += 200_000)
        {
            using var tx = env.BeginWrite();
            var ints = tx.CreateTree("ints", TreeOptions.Int64Keys);
            var bytes = tx.CreateTree("bytes");
            for (long number = first; number < Math.Min(treeKeys, first + 200_000); number++)
            {
                value[0] = (byte)(number | 1);
                ints.Put(2 * number, value);
                ByteKey(2 * number, key);
                bytes.Put(key, value);
            }
            tx.Commit();
        }
    }

    private static void ByteKey(long number, Span<byte> key)
    {
        BinaryPrimitives.WriteInt64BigEndian(key, number);
        Suffix.CopyTo(key[8..]);
    }

    private static void Header() =>
        Console.WriteLine($"{"batch",12} {"TryGet loop",13} {"CPU batch",13} {"device",13} {"device/CPU",10} {"transfer",8}");

    private static void Row(GpuBackend device, int size, TimeSpan loop, TimeSpan cpu, TimeSpan onDevice, TimeSpan transfer) =>
        Console.WriteLine($"{size,12:N0} {Measure.Rate(size, loop),13} {Measure.Rate(size, cpu),13} {(device.IsAccelerated ? Measure.Rate(size, onDevice) : "-"),13} " +
            $"{(device.IsAccelerated ? $"{cpu.TotalSeconds / onDevice.TotalSeconds:F2}x" : "-"),10} {(device.IsAccelerated ? Measure.Share(transfer, onDevice) : "-"),8}");
}
