using ILGPU;
using ILGPU.Algorithms;
using ILGPU.Algorithms.RadixSortOperations;
using ILGPU.Runtime;

namespace StorageEngine.Gpu;

/// <summary>ILGPU.Algorithms' radix sort of 64-bit keys and key+item pairs: the baseline <see cref="DeviceRadixSort"/> is measured against.</summary>
internal sealed class IlgpuAlgorithmsSort : IDisposable
{
    private readonly Accelerator _accelerator;
    private readonly RadixSort<ulong, Stride1D.Dense> _sort;
    private readonly RadixSortPairs<ulong, Stride1D.Dense, int, Stride1D.Dense> _sortPairs;
    private readonly DeviceBuffers _buffers;

    public IlgpuAlgorithmsSort(Accelerator accelerator)
    {
        _accelerator = accelerator;
        _sort = accelerator.CreateRadixSort<ulong, Stride1D.Dense, AscendingUInt64>();
        _sortPairs = accelerator.CreateRadixSortPairs<ulong, Stride1D.Dense, int, Stride1D.Dense, AscendingUInt64>();
        _buffers = new DeviceBuffers(accelerator);
    }

    /// <summary>Sorts host keys (with items when not empty) through the device.</summary>
    public void Sort(Span<ulong> keys, Span<int> items)
    {
        int n = keys.Length;
        if (n < 2) return;
        var deviceKeys = _buffers.Keys(n);
        ((ArrayView<ulong>)deviceKeys).CopyFromCPU(keys);
        if (items.IsEmpty)
        {
            var temp = _buffers.ScanTemp(_accelerator.ComputeRadixSortTempStorageSize<ulong, AscendingUInt64>(n));
            _sort(_accelerator.DefaultStream, deviceKeys, temp);
        }
        else
        {
            var deviceItems = _buffers.Items(n);
            ((ArrayView<int>)deviceItems).CopyFromCPU(items);
            var temp = _buffers.ScanTemp(_accelerator.ComputeRadixSortPairsTempStorageSize<ulong, int, AscendingUInt64>(n));
            _sortPairs(_accelerator.DefaultStream, deviceKeys, deviceItems, temp);
            _accelerator.Synchronize();
            ((ArrayView<int>)deviceItems).CopyToCPU(items);
        }
        _accelerator.Synchronize();
        ((ArrayView<ulong>)deviceKeys).CopyToCPU(keys);
    }

    public void Dispose() => _buffers.Dispose();
}
