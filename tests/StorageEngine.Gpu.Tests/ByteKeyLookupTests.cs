using System.Text;

namespace StorageEngine.Gpu.Tests;

/// <summary>
/// Byte-string keys on the device route: leaves found from 8-byte prefixes on the device, ties with leaf bounds
/// settled on the CPU; the results equal <see cref="Tree.TryGet(ReadOnlySpan{byte}, out ReadOnlySpan{byte})"/>'s and
/// the CPU batch path's, also where many leaves share their first 8 bytes.
/// </summary>
[Collection(CpuAcceleratorCollection.Name)]
public sealed class ByteKeyLookupTests(CpuAcceleratorFixture fixture) : IDisposable
{
    private readonly StorageEnvironment _env = StorageEnvironment.CreateInMemory();

    public void Dispose() => _env.Dispose();

    private static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);

    // "customer/000123/orders" and the like share their first 8 bytes ("customer"), so most leaf bounds tie;
    // short keys, keys of exactly 8 bytes and their extensions sit around them.
    private static IEnumerable<byte[]> StoredKeys()
    {
        for (int i = 0; i < 6_000; i++)
        {
            yield return Utf8($"customer/{i:D6}");
            yield return Utf8($"customer/{i:D6}/orders");
        }
        for (int i = 0; i < 2_000; i++) yield return Utf8($"c{i}");
        foreach (var key in new[] { "customer", "customes", "customer/", "zzzzzzzz", "zzzzzzzz0", "a" }) yield return Utf8(key);
        for (int i = 0; i < 255; i++) yield return [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, (byte)i];
    }

    private static ReadOnlyMemory<byte>[] ProbeKeys(int seed, int count = 16_000)
    {
        var stored = StoredKeys().ToArray();
        var random = new Random(seed);
        var probes = new List<ReadOnlyMemory<byte>>();
        for (int i = 0; i < count; i++)
        {
            var key = stored[random.Next(stored.Length)];
            probes.Add((random.Next(4)) switch
            {
                0 => key.Concat(new byte[] { 0 }).ToArray(), // just after a stored key: absent, same prefix
                1 => key.Length > 1 ? key[..^1] : Utf8("b"), // just before it: often absent
                _ => key,
            });
        }
        foreach (var key in new[] { "customer", "custome", "customer/999999", "customer/", "0", "~", "zzzzzzzz" }) probes.Add(Utf8(key));
        probes.Add(new byte[] { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff });
        probes.Add(new byte[] { 0 });
        return [.. probes];
    }

    private void Write(Action<Tree> change)
    {
        using var tx = _env.BeginWrite();
        change(tx.CreateTree("bytes"));
        tx.Commit();
    }

    private void AssertDeviceMatchesTheCpu(ReadOnlyMemory<byte>[] keys, int maxParallelism = 1)
    {
        using var tx = _env.BeginRead();
        var tree = tx.OpenTree("bytes");
        var directory = tree.GetLeafDirectory();
        Assert.False(directory.PrefixesAreExact);
        Assert.True(directory.LeafCount >= 50, $"only {directory.LeafCount} leaves");
        Assert.True(directory.Prefixes.ToArray().Distinct().Count() < directory.LeafCount / 2, "too few leaves share a prefix to test ties");

        var device = new BatchLookupResults { MaxParallelism = maxParallelism };
        fixture.Backend.GetMany(tree, keys, device);
        Assert.Equal(BatchRoute.Device, fixture.Backend.LastLookupRoute);
        var cpu = new BatchLookupResults();
        tree.GetMany(keys, cpu);

        Assert.Equal(keys.Length, device.Count);
        Assert.Equal(cpu.FoundCount, device.FoundCount);
        int found = 0;
        for (int i = 0; i < keys.Length; i++)
        {
            bool expected = tree.TryGet(keys[i].Span, out var value);
            Assert.Equal(expected, device.TryGetValue(i, out var actual));
            Assert.True(value.SequenceEqual(actual), $"value of key {i} ({Encoding.UTF8.GetString(keys[i].Span)})");
            if (expected) found++;
        }
        Assert.Equal(found, device.FoundCount);
        Assert.True(found > keys.Length / 3 && found < keys.Length, $"{found} of {keys.Length} found");
    }

    [Fact]
    public void Byte_keys_sharing_long_prefixes_match_TryGet_and_the_CPU_batch_path()
    {
        Write(tree => { foreach (var key in StoredKeys()) tree.Put(key, key.Reverse().ToArray()); });
        AssertDeviceMatchesTheCpu(ProbeKeys(21));
    }

    [Fact]
    public void A_batch_split_across_workers_matches_TryGet()
    {
        Write(tree => { foreach (var key in StoredKeys()) tree.Put(key, key.Reverse().ToArray()); });
        // 3 slices of at least 16K keys: the engine reads the values of the device's leaves on three threads.
        AssertDeviceMatchesTheCpu(ProbeKeys(24, 49_200), maxParallelism: 3);
    }

    [Fact]
    public void Byte_keys_stay_right_after_commits_refresh_the_device_copy()
    {
        Write(tree => { foreach (var key in StoredKeys()) tree.Put(key, key.Reverse().ToArray()); });
        var keys = ProbeKeys(22);
        AssertDeviceMatchesTheCpu(keys);

        Write(tree =>
        {
            for (int i = 0; i < 6_000; i += 3) tree.Delete(Utf8($"customer/{i:D6}/orders"));
            for (int i = 1_000; i < 2_000; i++) tree.Put(Utf8($"customer/{i:D6}/orders/{i % 7}"), "new"u8);
        });
        AssertDeviceMatchesTheCpu(keys);
    }

    [Fact]
    public void Byte_keys_below_the_break_even_take_the_CPU_path()
    {
        Write(tree => { foreach (var key in StoredKeys()) tree.Put(key, key.Reverse().ToArray()); });
        using var backend = GpuBackend.Create(new GpuOptions { UseCpuAccelerator = true, LookupBreakEven = 1_000 });
        using var tx = _env.BeginRead();
        var tree = tx.OpenTree("bytes");
        var keys = ProbeKeys(23)[..999];
        var results = new BatchLookupResults();

        backend.GetMany(tree, keys, results);

        Assert.Equal(BatchRoute.Cpu, backend.LastLookupRoute);
        for (int i = 0; i < keys.Length; i++) Assert.Equal(tree.TryGet(keys[i].Span, out _), results.TryGetValue(i, out _));
    }
}
