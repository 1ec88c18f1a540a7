using StorageEngine.Tests.Batch;

namespace StorageEngine.Gpu.Tests;

/// <summary>
/// Batch lookups with leaves found on ILGPU's CPU accelerator return what the engine's CPU batch path returns,
/// and a device structure of one snapshot is never used for another.
/// </summary>
[Collection(CpuAcceleratorCollection.Name)]
public sealed class DeviceLookupTests(CpuAcceleratorFixture fixture) : IDisposable
{
    private readonly StorageEnvironment _env = StorageEnvironment.CreateInMemory();

    public void Dispose() => _env.Dispose();

    private void Fill(long from, long count)
    {
        using var tx = _env.BeginWrite();
        var tree = tx.CreateTree("ints", TreeOptions.Int64Keys);
        for (long key = from; key < from + count; key++) tree.Put(2 * key, BitConverter.GetBytes(key));
        tx.Commit();
    }

    private static long[] Probes(int count, long range, int seed)
    {
        var random = new Random(seed);
        return Enumerable.Range(0, count).Select(_ => random.NextInt64(-10, 2 * range + 10)).ToArray();
    }

    [Fact]
    public void Device_lookups_of_64K_keys_match_the_CPU_batch_path()
    {
        Fill(0, 30_000);
        var keys = Probes(64 * 1024, 30_000, 1);
        using var tx = _env.BeginRead();
        var tree = tx.OpenTree("ints");
        var cpu = new BatchLookupResults();
        tree.GetMany(keys, cpu);
        var device = new BatchLookupResults();

        fixture.Backend.GetMany(tree, keys, device);

        Assert.Equal(BatchRoute.Device, fixture.Backend.LastLookupRoute);
        Assert.True(cpu.FoundCount > keys.Length / 3);
        BatchResultsAssert.Same(cpu, device);
    }

    [Fact]
    public void A_new_snapshot_gets_a_new_device_structure()
    {
        Fill(0, 5_000);
        var keys = Probes(4_000, 20_000, 2);
        var before = new BatchLookupResults();
        using (var tx = _env.BeginRead()) fixture.Backend.GetMany(tx.OpenTree("ints"), keys, before);

        Fill(5_000, 15_000); // splits leaves: the old directory's pages and bounds no longer describe the tree
        using var later = _env.BeginRead();
        var tree = later.OpenTree("ints");
        var device = new BatchLookupResults();
        fixture.Backend.GetMany(tree, keys, device);
        var cpu = new BatchLookupResults();
        tree.GetMany(keys, cpu);

        Assert.Equal(BatchRoute.Device, fixture.Backend.LastLookupRoute);
        BatchResultsAssert.Same(cpu, device);
        Assert.True(device.FoundCount > before.FoundCount);
    }

    [Fact]
    public void Lookups_in_a_write_transaction_see_its_changes()
    {
        Fill(0, 3_000);
        using var tx = _env.BeginWrite();
        var tree = tx.OpenTree("ints");
        var keys = Probes(2_000, 3_000, 3);
        fixture.Backend.GetMany(tree, keys, new BatchLookupResults());
        for (long key = 1; key < 6_000; key += 2) tree.Put(key, "odd"u8);
        var device = new BatchLookupResults();
        fixture.Backend.GetMany(tree, keys, device);
        var cpu = new BatchLookupResults();
        tree.GetMany(keys, cpu);
        BatchResultsAssert.Same(cpu, device);
    }

    [Fact]
    public void Calibration_sets_the_lookup_break_even_it_returns()
    {
        Fill(0, 10_000);
        using var backend = GpuBackend.Create(new GpuOptions { UseCpuAccelerator = true, LookupBreakEven = 123 });
        using var tx = _env.BeginRead();

        int breakEven = backend.CalibrateLookups(tx.OpenTree("ints"), largestBatch: 2_048);

        Assert.Equal(breakEven, backend.LookupBreakEven);
        Assert.True(breakEven is 1_024 or 2_048 or int.MaxValue, $"break-even {breakEven}");
    }
}
