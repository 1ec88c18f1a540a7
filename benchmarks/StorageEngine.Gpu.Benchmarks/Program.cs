using StorageEngine.Gpu;
using StorageEngine.Gpu.Benchmarks;

// Batch lookups and sorts: the GPU (through StorageEngine.Gpu) against the engine's CPU paths.
//   (no option)         CUDA device; lookups in a 10M-key tree, batches 1K to 16M; sorts of 1M to 256M keys
//   --quick             ILGPU's CPU accelerator and small sizes: checks the whole path on a machine without a GPU
//                       (its device figures are the CPU accelerator's, about 100x below the CPU path; not GPU figures)
//   --cpu-accelerator   the full sizes on the CPU accelerator (slow)
//   --max-batch N       lookup batches up to N keys only; --max-sort N: sorts up to N keys only; --repeats N: timed
//                       runs per figure (best kept); --tree-keys N: keys per lookup tree (default 10M). For a GPU
//                       machine lent for minutes (see device-run.sh).
bool quick = args.Contains("--quick");
bool cpuAccelerator = quick || args.Contains("--cpu-accelerator");
long maxBatch = long.MaxValue, maxSort = long.MaxValue, treeKeyOption = 0;
int? repeatOption = null;
for (int a = 0; a < args.Length; a++)
{
    if (args[a] is "--quick" or "--cpu-accelerator") continue;
    if (args[a] is "--max-batch" or "--max-sort" or "--repeats" or "--tree-keys" && a + 1 < args.Length && long.TryParse(args[a + 1], out long number) && number > 0)
    {
        switch (args[a++])
        {
            case "--max-batch": maxBatch = number; break;
            case "--max-sort": maxSort = number; break;
            case "--tree-keys": treeKeyOption = number; break;
            default: repeatOption = (int)Math.Min(number, 100); break;
        }
        continue;
    }
    Console.Error.WriteLine("usage: StorageEngine.Gpu.Benchmarks [--quick] [--cpu-accelerator] [--max-batch N] [--max-sort N] [--repeats N] [--tree-keys N]");
    return 2;
}

Console.WriteLine($"machine: {Environment.ProcessorCount} cores, {System.Runtime.InteropServices.RuntimeInformation.OSDescription}, .NET {Environment.Version}");
// Every batch to the device: the tables show where it wins, which is what the break-even is.
using var device = GpuBackend.Create(new GpuOptions { UseCpuAccelerator = cpuAccelerator, LookupBreakEven = 1, SortBreakEven = 1 });
Console.WriteLine($"device: {device.DeviceName}{(device.IsAccelerated ? "" : " (CPU figures only)")}");

long treeKeys = treeKeyOption > 0 ? treeKeyOption : quick ? 100_000 : 10_000_000;
var batches = (quick ? new[] { 1_024, 16_384 } : [1_024, 16_384, 65_536, 262_144, 1 << 20, 4 << 20, 16 << 20]).Where(n => n <= maxBatch).ToArray();
var sorts = (quick ? new[] { 16_384 } : [1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20]).Where(n => n <= maxSort).ToArray();
int repeats = repeatOption ?? (quick ? 1 : 3);

Console.WriteLine("== batch lookups (lookups per second)");
var lookupBreakEven = LookupBenchmark.Run(device, treeKeys, batches, repeats);
Console.WriteLine("== sorts of 64-bit keys (keys per second)");
long sortBreakEven = SortBenchmark.Run(device, device.Accelerator, sorts, repeats);
Console.WriteLine("== break-even (smallest measured size at which the device won)");
Console.WriteLine($"lookups: {Size(lookupBreakEven.Ints)} (integer keys), {Size(lookupBreakEven.Bytes)} (byte keys); sort: {Size(sortBreakEven)}");
return 0;

static string Size(long size) => size == long.MaxValue ? "none measured" : size.ToString("N0");
