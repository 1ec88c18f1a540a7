namespace StorageEngine.Gpu.Benchmarks;

/// <summary>
/// Lookups per second of random batches (three quarters present) in a tree of 8-byte integer keys: a TryGet loop,
/// the engine's batch path on all cores, and the device route (leaves found on the device); with the device's
/// transfer share. Returns the smallest batch at which the device route beat the all-core CPU path.
/// </summary>
internal static class LookupBenchmark
{
    public static long Run(GpuBackend device, long treeKeys, IReadOnlyList<int> batchSizes, int repeats)
    {
        string directory = Path.Combine(Path.GetTempPath(), $"storageengine-gpu-bench-{Environment.ProcessId}");
        Directory.CreateDirectory(directory);
        try
        {
            using var env = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = directory });
            Console.WriteLine($"loading {treeKeys:N0} keys...");
            var value = new byte[16];
            for (long first = 0; first < treeKeys; first += 200_000)
            {
                using var tx = env.BeginWrite();
                var tree = tx.CreateTree("ints", TreeOptions.Int64Keys);
                for (long key = first; key < Math.Min(treeKeys, first + 200_000); key++)
                {
                    value[0] = (byte)(key | 1);
                    tree.Put(2 * key, value);
                }
                tx.Commit();
            }
            using var read = env.BeginRead();
            var ints = read.OpenTree("ints");
            var random = new Random(7);
            var results = new BatchLookupResults();
            long breakEven = long.MaxValue;
            Console.WriteLine($"{"batch",12} {"TryGet loop",13} {"CPU batch",13} {"device",13} {"device/CPU",10} {"transfer",8}");
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
                TimeSpan onDevice = TimeSpan.Zero, transfer = TimeSpan.Zero;
                if (device.IsAccelerated)
                {
                    onDevice = Measure.Best(() => device.GetMany(ints, keys, results), repeats);
                    transfer = device.LastTransferTime;
                    if (onDevice < cpu && size < breakEven) breakEven = size;
                }
                Console.WriteLine($"{size,12:N0} {Measure.Rate(size, loop),13} {Measure.Rate(size, cpu),13} {(device.IsAccelerated ? Measure.Rate(size, onDevice) : "-"),13} " +
                    $"{(device.IsAccelerated ? $"{cpu.TotalSeconds / onDevice.TotalSeconds:F2}x" : "-"),10} {(device.IsAccelerated ? Measure.Share(transfer, onDevice) : "-"),8}");
            }
            return breakEven;
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }
}
