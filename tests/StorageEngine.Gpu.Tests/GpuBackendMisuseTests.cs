namespace StorageEngine.Gpu.Tests;

/// <summary>Misuse of a backend gets a clear exception: null arguments, mismatched spans, use after disposal.</summary>
public sealed class GpuBackendMisuseTests
{
    [Fact]
    public void Null_arguments_and_use_after_Dispose_throw()
    {
        var backend = GpuBackend.Create();
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t", TreeOptions.Int64Keys);
            tx.Commit();
        }
        using var read = env.BeginRead();
        var tree = read.OpenTree("t");
        Assert.Throws<ArgumentNullException>(() => backend.GetMany(null!, [1], new BatchLookupResults()));
        Assert.Throws<ArgumentNullException>(() => backend.GetMany(tree, [1], null!));
        Assert.Throws<ArgumentException>(() => backend.Sort(new ulong[3], new int[2]));

        backend.Dispose();
        backend.Dispose();
        Assert.Throws<ObjectDisposedException>(() => backend.GetMany(tree, [1], new BatchLookupResults()));
        Assert.Throws<ObjectDisposedException>(() => backend.Sort(new ulong[3]));
        Assert.Throws<ObjectDisposedException>(() => backend.CalibrateLookups(tree));
    }

    [Fact]
    public void Byte_key_lookups_check_their_arguments_and_the_backend()
    {
        var backend = GpuBackend.Create(new GpuOptions { UseCpuAccelerator = true });
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("b").Put("k"u8, "v"u8);
            tx.Commit();
        }
        using var read = env.BeginRead();
        var tree = read.OpenTree("b");
        ReadOnlyMemory<byte>[] keys = ["k"u8.ToArray()];
        Assert.Throws<ArgumentNullException>(() => backend.GetMany(null!, keys, new BatchLookupResults()));
        Assert.Throws<ArgumentNullException>(() => backend.GetMany(tree, keys, null!));
        // An empty key is refused by the engine on the device route as on the CPU route.
        Assert.Throws<ArgumentException>(() => backend.GetMany(tree, [ReadOnlyMemory<byte>.Empty], new BatchLookupResults()));
        Assert.Equal(BatchRoute.None, backend.LastLookupRoute);

        backend.Dispose();
        Assert.Throws<ObjectDisposedException>(() => backend.GetMany(tree, keys, new BatchLookupResults()));
    }
}
