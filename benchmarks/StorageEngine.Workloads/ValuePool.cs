namespace StorageEngine.Workloads;

/// <summary>
/// Values are slices of one block of random (incompressible) bytes at an offset chosen by the item's index,
/// so building a batch copies nothing and neighbouring values differ.
/// </summary>
internal static class ValuePool
{
    private static readonly byte[] Pool = CreatePool();

    private static byte[] CreatePool()
    {
        var pool = new byte[8 << 20];
        new Random(20240601).NextBytes(pool);
        return pool;
    }

    internal static ReadOnlyMemory<byte> Value(long index, int size) =>
        Pool.AsMemory((int)(Keys.Mix((ulong)index) % (ulong)(Pool.Length - size)), size);
}
