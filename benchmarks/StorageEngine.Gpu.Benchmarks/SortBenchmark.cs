using ILGPU.Runtime;

namespace StorageEngine.Gpu.Benchmarks;

/// <summary>
/// Sorts of random 64-bit keys, alone and with an int item each: Array.Sort (the CPU path), the 8-bit radix sort
/// kernels and ILGPU.Algorithms' radix sort, with the device's transfer share. Returns the smallest size at which
/// the 8-bit sort beat Array.Sort (keys alone).
/// </summary>
internal static class SortBenchmark
{
    public static long Run(GpuBackend device, Accelerator? accelerator, IReadOnlyList<int> sizes, int repeats)
    {
        long breakEven = long.MaxValue;
        using var baseline = accelerator is null ? null : new IlgpuAlgorithmsSort(accelerator);
        using var radix = accelerator is null ? null : new DeviceRadixSort(accelerator);
        Console.WriteLine($"{"keys",12} {"pairs",5} {"Array.Sort",13} {"8-bit radix",13} {"ILGPU.Alg.",13} {"vs Sort",8} {"vs ILGPU",8} {"transfer",8}");
        foreach (int size in sizes)
        {
            foreach (bool pairs in new[] { false, true })
            {
                var random = new Random(size);
                var source = new ulong[size];
                for (int i = 0; i < size; i++) source[i] = (ulong)random.NextInt64() ^ ((ulong)random.Next() << 40);
                var keys = new ulong[size];
                var items = pairs ? new int[size] : [];
                void Reset()
                {
                    source.CopyTo(keys, 0);
                    for (int i = 0; i < items.Length; i++) items[i] = i;
                }
                var cpu = Measure.Best(() => { Reset(); CpuSort.Sort(keys, items); }, repeats);
                TimeSpan ours = TimeSpan.Zero, theirs = TimeSpan.Zero, transfer = TimeSpan.Zero;
                if (radix is not null && baseline is not null)
                {
                    ours = Measure.Best(() => { Reset(); radix.Sort(keys, items); }, repeats);
                    transfer = radix.LastTransferTime;
                    theirs = Measure.Best(() => { Reset(); baseline.Sort(keys, items); }, repeats);
                    if (!pairs && ours < cpu && size < breakEven) breakEven = size;
                }
                // The reset copy is in every figure alike: a few percent of the fastest.
                bool on = radix is not null;
                Console.WriteLine($"{size,12:N0} {(pairs ? "yes" : "no"),5} {Measure.Rate(size, cpu),13} {(on ? Measure.Rate(size, ours) : "-"),13} {(on ? Measure.Rate(size, theirs) : "-"),13} " +
                    $"{(on ? $"{cpu.TotalSeconds / ours.TotalSeconds:F2}x" : "-"),8} {(on ? $"{theirs.TotalSeconds / ours.TotalSeconds:F2}x" : "-"),8} {(on ? Measure.Share(transfer, ours) : "-"),8}");
            }
        }
        return breakEven;
    }
}
