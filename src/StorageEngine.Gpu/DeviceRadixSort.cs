using ILGPU;
using ILGPU.Runtime;
using StorageEngine.Gpu.Kernels;

namespace StorageEngine.Gpu;

/// <summary>
/// The 8-bit-digit LSD radix sort of 64-bit keys (optionally with a 32-bit item each) on an ILGPU accelerator:
/// 8 passes of count, scan and scatter, all three its own kernels (<see cref="RadixSortKernels"/>). Per key and pass it reads the key twice
/// (coalesced: the scatter stages its tile in shared memory) and writes it once (items once each way): about 250 bytes of memory traffic per key+item in all, against about
/// 1 KB for ILGPU.Algorithms' 2-bit sort (32 passes of 4 launches). Stable. Not thread-safe.
/// </summary>
internal sealed class DeviceRadixSort : IDisposable
{
    private const int Passes = sizeof(ulong);
    private readonly Accelerator _accelerator;
    private readonly Action<KernelConfig, ArrayView<ulong>, ArrayView<int>, int, int, int> _count;
    private readonly Action<KernelConfig, ArrayView<int>, ArrayView<int>, ArrayView<int>, int> _scanRows;
    private readonly Action<KernelConfig, ArrayView<ulong>, ArrayView<int>, ArrayView<ulong>, ArrayView<int>, ArrayView<int>, ArrayView<int>, int, int, int, int> _scatter;
    private readonly DeviceBuffers _buffers;
    private readonly int _groupSize;

    public DeviceRadixSort(Accelerator accelerator)
    {
        _accelerator = accelerator;
        _groupSize = Math.Min(RadixSortKernels.MaxGroupSize, accelerator.MaxNumThreadsPerGroup);
        _count = accelerator.LoadStreamKernel<ArrayView<ulong>, ArrayView<int>, int, int, int>(RadixSortKernels.Count);
        _scanRows = accelerator.LoadStreamKernel<ArrayView<int>, ArrayView<int>, ArrayView<int>, int>(RadixSortKernels.ScanRows);
        _scatter = accelerator.LoadStreamKernel<ArrayView<ulong>, ArrayView<int>, ArrayView<ulong>, ArrayView<int>, ArrayView<int>, ArrayView<int>, int, int, int, int>(RadixSortKernels.Scatter);
        _buffers = new DeviceBuffers(accelerator);
    }

    /// <summary>Time the last host sort spent copying keys and items to the device and back.</summary>
    public TimeSpan LastTransferTime { get; private set; }

    /// <summary>Sorts host keys (and items alongside when <paramref name="items"/> is not empty) through the device.</summary>
    public void Sort(Span<ulong> keys, Span<int> items)
    {
        bool withItems = !items.IsEmpty;
        int n = keys.Length;
        if (n < 2) return;
        var deviceKeys = _buffers.Keys(n);
        var deviceItems = _buffers.Items(withItems ? n : 1);
        long started = System.Diagnostics.Stopwatch.GetTimestamp();
        ((ArrayView<ulong>)deviceKeys).CopyFromCPU(keys);
        if (withItems) ((ArrayView<int>)deviceItems).CopyFromCPU(items);
        long uploaded = System.Diagnostics.Stopwatch.GetTimestamp();
        SortOnDevice(deviceKeys, deviceItems, n, withItems);
        long sorted = System.Diagnostics.Stopwatch.GetTimestamp();
        ((ArrayView<ulong>)deviceKeys).CopyToCPU(keys);
        if (withItems) ((ArrayView<int>)deviceItems).CopyToCPU(items);
        LastTransferTime = System.Diagnostics.Stopwatch.GetElapsedTime(started, uploaded) + System.Diagnostics.Stopwatch.GetElapsedTime(sorted);
    }

    /// <summary>Sorts the first <paramref name="n"/> keys of device views in place (the result ends where it began: 8 passes).</summary>
    public void SortOnDevice(ArrayView1D<ulong, Stride1D.Dense> keys, ArrayView1D<int, Stride1D.Dense> items, int n, bool withItems)
    {
        int tileSize = RadixSortKernels.TileSize(_groupSize);
        int tiles = (n + tileSize - 1) / tileSize;
        int countLength = RadixSortKernels.Radix * tiles;
        var otherKeys = _buffers.SpareKeys(n);
        var otherItems = _buffers.SpareItems(withItems ? n : 1);
        var counts = _buffers.Counts(countLength);
        var offsets = _buffers.Offsets(countLength);
        var rowTotals = _buffers.ScanTemp(RadixSortKernels.Radix);
        var config = new KernelConfig(tiles, _groupSize);
        // The scatter's shared memory: this dynamic part (33 KB for 32 threads) plus its static tile of keys and items
        // (12 KB): under the 48 KB a group gets without opting in to more.
        var scatterConfig = new KernelConfig(new Index1D(tiles), new Index1D(_groupSize), SharedMemoryConfig.RequestDynamic<int>(RadixSortKernels.Radix * (_groupSize + 1)));
        var rowsConfig = new KernelConfig(RadixSortKernels.Radix, _groupSize);
        ArrayView<ulong> sourceKeys = keys.SubView(0, n), targetKeys = otherKeys.SubView(0, n);
        ArrayView<int> sourceItems = items, targetItems = otherItems;
        for (int pass = 0; pass < Passes; pass++)
        {
            int shift = 8 * pass;
            _count(config, sourceKeys, counts, shift, tiles, n);
            _scanRows(rowsConfig, counts, offsets, rowTotals, tiles);
            _scatter(scatterConfig, sourceKeys, sourceItems, targetKeys, targetItems, offsets, rowTotals, shift, tiles, n, withItems ? 1 : 0);
            (sourceKeys, targetKeys) = (targetKeys, sourceKeys);
            (sourceItems, targetItems) = (targetItems, sourceItems);
        }
        _accelerator.Synchronize();
    }

    public void Dispose() => _buffers.Dispose();
}
