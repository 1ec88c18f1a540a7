using ILGPU;
using ILGPU.Runtime;

namespace StorageEngine.Gpu;

/// <summary>
/// Device memory kept between batches: each buffer grows to the largest request (doubling) and is reused, so
/// that a batch allocates device memory only when it is the largest yet.
/// </summary>
internal sealed class DeviceBuffers(Accelerator accelerator) : IDisposable
{
    private MemoryBuffer1D<ulong, Stride1D.Dense>? _keys, _spareKeys, _probes;
    private MemoryBuffer1D<int, Stride1D.Dense>? _items, _spareItems, _counts, _offsets, _scanTemp, _leaves;

    public ArrayView1D<ulong, Stride1D.Dense> Keys(int length) => Get(ref _keys, length);
    public ArrayView1D<ulong, Stride1D.Dense> SpareKeys(int length) => Get(ref _spareKeys, length);
    public ArrayView1D<ulong, Stride1D.Dense> Probes(int length) => Get(ref _probes, length);
    public ArrayView1D<int, Stride1D.Dense> Items(int length) => Get(ref _items, length);
    public ArrayView1D<int, Stride1D.Dense> SpareItems(int length) => Get(ref _spareItems, length);
    public ArrayView1D<int, Stride1D.Dense> Counts(int length) => Get(ref _counts, length);
    public ArrayView1D<int, Stride1D.Dense> Offsets(int length) => Get(ref _offsets, length);
    public ArrayView1D<int, Stride1D.Dense> ScanTemp(int length) => Get(ref _scanTemp, Math.Max(1, length));
    public ArrayView1D<int, Stride1D.Dense> Leaves(int length) => Get(ref _leaves, length);

    private ArrayView1D<T, Stride1D.Dense> Get<T>(ref MemoryBuffer1D<T, Stride1D.Dense>? buffer, int length) where T : unmanaged
    {
        length = Math.Max(1, length);
        if (buffer is null || buffer.Length < length)
        {
            long capacity = Math.Max(length, buffer is null ? 0 : Math.Min(int.MaxValue, buffer.Length * 2));
            buffer?.Dispose();
            buffer = null;
            buffer = accelerator.Allocate1D<T>(capacity);
        }
        return buffer.View.SubView(0, length);
    }

    public void Dispose()
    {
        foreach (var buffer in new MemoryBuffer?[] { _keys, _spareKeys, _probes, _items, _spareItems, _counts, _offsets, _scanTemp, _leaves }) buffer?.Dispose();
    }
}
