using StorageEngine.Tests.Batch;

namespace StorageEngine.Gpu.Tests;

/// <summary>
/// The device's leaf directory follows commits by uploading what changed: after puts, deletes and splits it equals
/// a directory built from scratch, lookups through it match the CPU path, and a small commit uploads a small part.
/// </summary>
[Collection(CpuAcceleratorCollection.Name)]
public sealed class DeviceDirectoryRefreshTests(CpuAcceleratorFixture fixture) : IDisposable
{
    private readonly StorageEnvironment _env = StorageEnvironment.CreateInMemory();

    public void Dispose() => _env.Dispose();

    private GpuBackend Backend => fixture.Backend;

    private DeviceLeafDirectory Device => Backend.DeviceDirectory ?? throw new InvalidOperationException("no device directory");

    private void Write(Action<Tree> change)
    {
        using var tx = _env.BeginWrite();
        change(tx.CreateTree("ints", TreeOptions.Int64Keys));
        tx.Commit();
    }

    private static long[] Probes(int count, long range, int seed)
    {
        var random = new Random(seed);
        return Enumerable.Range(0, count).Select(_ => random.NextInt64(-10, range + 10)).ToArray();
    }

    /// <summary>Looks the keys up on the device in a new snapshot; checks results and the device copy against the CPU and a full build.</summary>
    private int LookUpAndCheck(long[] keys)
    {
        using var tx = _env.BeginRead();
        var tree = tx.OpenTree("ints");
        var device = new BatchLookupResults();
        Backend.GetMany(tree, keys, device);
        Assert.Equal(BatchRoute.Device, Backend.LastLookupRoute);
        var cpu = new BatchLookupResults();
        tree.GetMany(keys, cpu);
        BatchResultsAssert.Same(cpu, device);
        var rebuilt = tree.GetLeafDirectory();
        Assert.Equal(rebuilt.Prefixes.ToArray(), Device.ReadBack());
        Assert.Equal(tx.SnapshotId, Device.Directory!.SnapshotId);
        return rebuilt.LeafCount;
    }

    [Fact]
    public void After_puts_deletes_and_splits_the_refreshed_copy_equals_a_full_build()
    {
        Write(tree => { for (long key = 0; key < 40_000; key++) tree.Put(2 * key, BitConverter.GetBytes(key)); });
        var keys = Probes(8_000, 80_000, 11);
        int leaves = LookUpAndCheck(keys);
        // At most whole: the shared backend may hold another test's directory with entries in common.
        Assert.InRange(Device.LastUploaded, 0, leaves);

        // Overwrites: no bound changes, nothing to send.
        Write(tree => { for (long key = 0; key < 80_000; key += 998) tree.Put(key, "new"u8); });
        Assert.Equal(leaves, LookUpAndCheck(keys));
        Assert.Equal(0, Device.LastUploaded);

        // Inserts in the middle split leaves there: the tail shifts on the device, the new bounds are uploaded.
        Write(tree => { for (long key = 30_001; key < 36_000; key += 2) tree.Put(key, "odd"u8); });
        long moved = Device.TotalMovedOnDevice;
        int grown = LookUpAndCheck(keys);
        Assert.True(grown > leaves, $"{grown} leaves after the splits, {leaves} before");
        Assert.InRange(Device.LastUploaded, 1, grown / 2);
        Assert.True(Device.TotalMovedOnDevice > moved);

        // Deletes of a range empty leaves; patches in place at the start.
        Write(tree => { for (long key = 4_000; key < 20_000; key++) tree.Delete(key); });
        int shrunk = LookUpAndCheck(keys);
        Assert.True(shrunk < grown, $"{shrunk} leaves after the deletes, {grown} before");

        // Appends past the end split the last leaf.
        Write(tree => { for (long key = 80_000; key < 84_000; key++) tree.Put(key, "end"u8); });
        LookUpAndCheck(Probes(8_000, 84_000, 12));
    }

    [Fact]
    public void A_small_commit_uploads_a_small_part_of_the_directory()
    {
        Write(tree => { for (long key = 0; key < 40_000; key++) tree.Put(2 * key, BitConverter.GetBytes(key)); });
        var keys = Probes(4_000, 80_000, 13);
        int leaves = LookUpAndCheck(keys);
        long total = Device.TotalUploaded;

        // 400 keys in one narrow range: a few splits in one place.
        Write(tree => { for (long key = 50_001; key < 50_801; key += 2) tree.Put(key, "odd"u8); });
        int after = LookUpAndCheck(keys);

        Assert.True(after > leaves, $"{after} leaves after the commit, {leaves} before: the commit split no leaf");
        Assert.True(leaves >= 100, $"only {leaves} leaves");
        Assert.InRange(Device.LastUploaded, 1, 8);
        Assert.Equal(total + Device.LastUploaded, Device.TotalUploaded);
    }

    [Fact]
    public void Splits_spread_over_the_tree_upload_only_the_new_bounds()
    {
        Write(tree => { for (long key = 0; key < 40_000; key++) tree.Put(2 * key, BitConverter.GetBytes(key)); });
        var keys = Probes(4_000, 80_000, 15);
        int leaves = LookUpAndCheck(keys);

        // Eight clusters of 300 keys, about 30 leaves apart: a diff of one changed range (first change to last)
        // would send most of the directory.
        Write(tree =>
        {
            for (long cluster = 1; cluster <= 8; cluster++)
                for (long key = cluster * 9_000 + 1; key < cluster * 9_000 + 601; key += 2) tree.Put(key, "odd"u8);
        });
        int after = LookUpAndCheck(keys);

        Assert.True(after >= leaves + 8, $"{after} leaves after the commit, {leaves} before");
        Assert.InRange(Device.LastUploaded, after - leaves, 2 * (after - leaves));
    }

    [Fact]
    public void Readers_of_an_older_and_a_newer_snapshot_each_get_their_own_leaves()
    {
        Write(tree => { for (long key = 0; key < 10_000; key++) tree.Put(2 * key, BitConverter.GetBytes(key)); });
        var keys = Probes(4_000, 30_000, 14);
        using var older = _env.BeginRead();
        Write(tree => { for (long key = 1; key < 30_000; key += 2) tree.Put(key, "odd"u8); });
        using var newer = _env.BeginRead();

        // Alternating: each lookup refreshes the device copy to its own snapshot and is checked against it.
        foreach (var tx in new[] { older, newer, older, newer })
        {
            var tree = tx.OpenTree("ints");
            var device = new BatchLookupResults();
            Backend.GetMany(tree, keys, device);
            Assert.Equal(BatchRoute.Device, Backend.LastLookupRoute);
            Assert.Equal(tx.SnapshotId, Device.Directory!.SnapshotId);
            var cpu = new BatchLookupResults();
            tree.GetMany(keys, cpu);
            BatchResultsAssert.Same(cpu, device);
        }
    }
}
