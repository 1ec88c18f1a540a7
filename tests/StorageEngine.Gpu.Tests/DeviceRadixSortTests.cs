namespace StorageEngine.Gpu.Tests;

/// <summary>
/// The 8-bit radix sort kernels, run on ILGPU's CPU accelerator: they order keys as Array.Sort does, keep equal
/// keys' items in input order, handle lengths that are not whole tiles, and agree with ILGPU.Algorithms' sort.
/// </summary>
[Collection(CpuAcceleratorCollection.Name)]
public sealed class DeviceRadixSortTests(CpuAcceleratorFixture fixture)
{
    private static ulong[] RandomKeys(int count, int seed, ulong range = 0)
    {
        var random = new Random(seed);
        var keys = new ulong[count];
        for (int i = 0; i < count; i++) keys[i] = range == 0 ? (ulong)random.NextInt64() << 1 ^ (ulong)random.Next(2) : (ulong)random.NextInt64((long)range);
        return keys;
    }

    [Theory]
    [InlineData(16 * 1024, 0)]
    [InlineData(16 * 1024 + 123, 0)]   // a partial last tile
    [InlineData(5, 0)]
    [InlineData(16 * 1024, 50)]        // many equal keys
    public void Keys_with_positions_sort_like_a_stable_sort(int count, int distinct)
    {
        var keys = RandomKeys(count, count + distinct, (ulong)distinct);
        var items = Enumerable.Range(0, count).ToArray();
        var expected = keys.Select((key, item) => (key, item)).OrderBy(p => p.key).ThenBy(p => p.item).ToArray();

        fixture.Backend.Sort(keys, items);

        Assert.Equal(BatchRoute.Device, fixture.Backend.LastSortRoute);
        Assert.Equal(expected.Select(p => p.key), keys);
        Assert.Equal(expected.Select(p => p.item), items);
    }

    [Fact]
    public void Keys_alone_sort_like_Array_Sort_and_like_ILGPU_Algorithms()
    {
        var keys = RandomKeys(16 * 1024, 1);
        var expected = (ulong[])keys.Clone();
        Array.Sort(expected);
        var baseline = (ulong[])keys.Clone();

        fixture.Backend.Sort(keys);
        using (var ilgpu = new IlgpuAlgorithmsSort(fixture.Backend.Accelerator!)) ilgpu.Sort(baseline, default);

        Assert.Equal(expected, keys);
        Assert.Equal(expected, baseline);
    }

    [Fact]
    public void Items_of_another_length_throw_ArgumentException()
    {
        Assert.Throws<ArgumentException>(() => fixture.Backend.Sort(new ulong[4], new int[3]));
    }
}
