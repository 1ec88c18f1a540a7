using System.Diagnostics;
using ILGPU;
using ILGPU.Algorithms;
using ILGPU.Runtime;
using ILGPU.Runtime.CPU;
using ILGPU.Runtime.Cuda;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using StorageEngine.Gpu.Kernels;

namespace StorageEngine.Gpu;

/// <summary>
/// Batch lookups and sorts on a CUDA GPU through ILGPU, each batch routed to the device or to the engine's CPU
/// batch path by a break-even size. Without a GPU or a CUDA driver, or after a device failure, every batch takes
/// the CPU path: that is said once through the logger, never thrown. Results are the same on both routes.
/// Thread-safe: device work is serialized; CPU-routed batches run concurrently.
/// </summary>
public sealed class GpuBackend : IDisposable
{
    /// <summary>Break-even used when none is configured or measured.</summary>
    public const int DefaultBreakEven = 64 * 1024;

    private readonly object _deviceLock = new();
    private readonly ILogger _logger;
    private Context? _context;
    private Accelerator? _accelerator;
    // The accelerator to dispose: _accelerator is cleared when a failure routes everything to the CPU.
    private Accelerator? _ownedAccelerator;
    private DeviceRadixSort? _sort;
    internal Accelerator? Accelerator => Volatile.Read(ref _accelerator);

    private DeviceBuffers? _buffers;
    private Action<Index1D, ArrayView<ulong>, ArrayView<ulong>, ArrayView<int>>? _findLeaves;
    // The device copy of one leaf directory's prefixes; refreshed (what changed uploaded) when a lookup comes for another snapshot or tree.
    private DeviceLeafDirectory? _directory;
    private ulong[] _probes = [];
    private int[] _leaves = [];
    private int _fallbackLogged;
    private bool _disposed;

    private GpuBackend(GpuOptions options)
    {
        _logger = options.Logger ?? NullLogger.Instance;
        LookupBreakEven = options.LookupBreakEven ?? DefaultBreakEven;
        SortBreakEven = options.SortBreakEven ?? DefaultBreakEven;
    }

    /// <summary>
    /// Opens the first CUDA device (or ILGPU's CPU accelerator with <see cref="GpuOptions.UseCpuAccelerator"/>),
    /// compiles the kernels and, when asked and none is set, measures the sort break-even. Never throws for a
    /// missing GPU or driver: the backend then routes everything to the CPU.
    /// </summary>
    public static GpuBackend Create(GpuOptions? options = null)
    {
        options ??= new GpuOptions();
        var backend = new GpuBackend(options);
        backend.Start(options);
        return backend;
    }

    /// <summary>True when a device runs the batches at or above the break-evens.</summary>
    public bool IsAccelerated => Volatile.Read(ref _accelerator) is not null;

    /// <summary>The device in use, or why none is.</summary>
    public string DeviceName { get; private set; } = "none";

    /// <summary>Smallest batch lookup sent to the device.</summary>
    public int LookupBreakEven { get; private set; }

    /// <summary>Smallest sort sent to the device.</summary>
    public int SortBreakEven { get; private set; }

    /// <summary>Where the last batch lookup ran.</summary>
    public BatchRoute LastLookupRoute { get; private set; }

    /// <summary>Time the last device-routed batch spent copying between host and device (for the benchmark's transfer share).</summary>
    internal TimeSpan LastTransferTime { get; private set; }

    /// <summary>Where the last sort ran.</summary>
    public BatchRoute LastSortRoute { get; private set; }

    private void Start(GpuOptions options)
    {
        try
        {
            CudaLibraryResolver.Register();
            if (options.UseCpuAccelerator)
            {
                // One warp of 4 threads: every simulated thread is an OS thread that spins at group barriers, so few of them.
                _context = Context.Create(builder => builder.CPU(new CPUDevice(numThreadsPerWarp: 4, numWarpsPerMultiprocessor: 1, numMultiprocessors: 1)).EnableAlgorithms());
                _accelerator = _ownedAccelerator = _context.GetCPUDevice(0).CreateAccelerator(_context);
                LookupBreakEven = options.LookupBreakEven ?? 0;
                SortBreakEven = options.SortBreakEven ?? 0;
            }
            else
            {
                _context = Context.Create(builder => builder.Cuda().EnableAlgorithms());
                var devices = _context.GetCudaDevices();
                if (devices.Count == 0)
                {
                    UseCpu("no CUDA device or driver was found");
                    return;
                }
                _accelerator = _ownedAccelerator = devices[0].CreateAccelerator(_context);
            }
            _sort = new DeviceRadixSort(_accelerator);
            _buffers = new DeviceBuffers(_accelerator);
            _directory = new DeviceLeafDirectory(_accelerator);
            _findLeaves = _accelerator.LoadAutoGroupedStreamKernel<Index1D, ArrayView<ulong>, ArrayView<ulong>, ArrayView<int>>(LookupKernels.FindLeaves);
            DeviceName = _accelerator.Name;
            if (!options.UseCpuAccelerator && options.SortBreakEven is null && options.Calibrate) SortBreakEven = CalibrateSort();
            _logger.LogInformation("StorageEngine.Gpu: batches run on {Device} from {Lookups} lookups and {Sort} sorted keys.", DeviceName, LookupBreakEven, SortBreakEven);
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            UseCpu($"the device could not be started ({e.GetType().Name}: {e.Message})");
        }
    }

    /// <summary>
    /// Looks the keys up as <see cref="Tree.GetMany(ReadOnlySpan{long}, BatchLookupResults)"/> does: on the
    /// device from <see cref="LookupBreakEven"/> keys (leaves found on the device from the tree's leaf directory
    /// of this snapshot, values read by the engine), else on the CPU.
    /// </summary>
    public void GetMany(Tree tree, ReadOnlySpan<long> keys, BatchLookupResults results)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        ArgumentNullException.ThrowIfNull(tree);
        ArgumentNullException.ThrowIfNull(results);
        if (keys.Length >= LookupBreakEven && keys.Length > 0 && IsAccelerated)
        {
            lock (_deviceLock)
            {
                var probes = Probes(keys.Length);
                // Integer keys sort as their big-endian bytes with the sign bit flipped: the directory's prefixes of them.
                for (int i = 0; i < keys.Length; i++) probes[i] = (ulong)keys[i] ^ 0x8000_0000_0000_0000UL;
                if (TryFindLeaves(tree, keys.Length, out var directory))
                {
                    tree.GetMany(keys, directory, _leaves.AsSpan(0, keys.Length), results);
                    LastLookupRoute = BatchRoute.Device;
                    return;
                }
            }
        }
        tree.GetMany(keys, results);
        LastLookupRoute = BatchRoute.Cpu;
    }

    /// <summary>
    /// Looks byte-string keys up as <see cref="Tree.GetMany(ReadOnlySpan{ReadOnlyMemory{byte}}, BatchLookupResults)"/>
    /// does: from <see cref="LookupBreakEven"/> keys the device searches the leaves' 8-byte prefixes with each key's
    /// (<see cref="Tree.BatchKeyPrefix"/>), and the engine settles on the CPU every key whose prefix ties with a leaf
    /// bound (keys sharing their first 8 bytes across leaves) before reading the values; else all on the CPU.
    /// </summary>
    public void GetMany(Tree tree, ReadOnlySpan<ReadOnlyMemory<byte>> keys, BatchLookupResults results)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        ArgumentNullException.ThrowIfNull(tree);
        ArgumentNullException.ThrowIfNull(results);
        if (keys.Length >= LookupBreakEven && keys.Length > 0 && IsAccelerated)
        {
            lock (_deviceLock)
            {
                var probes = Probes(keys.Length);
                for (int i = 0; i < keys.Length; i++) probes[i] = Tree.BatchKeyPrefix(keys[i].Span);
                if (TryFindLeaves(tree, keys.Length, out var directory))
                {
                    tree.GetMany(keys, directory, _leaves.AsSpan(0, keys.Length), results);
                    LastLookupRoute = BatchRoute.Device;
                    return;
                }
            }
        }
        tree.GetMany(keys, results);
        LastLookupRoute = BatchRoute.Cpu;
    }

    /// <summary>The host array of probe prefixes, at least <paramref name="count"/> long (and the leaves array with it).</summary>
    private Span<ulong> Probes(int count)
    {
        if (_probes.Length < count)
        {
            _probes = new ulong[count];
            _leaves = new int[count];
        }
        return _probes.AsSpan(0, count);
    }

    /// <summary>
    /// Sorts 64-bit keys ascending, on the device from <see cref="SortBreakEven"/> keys. With
    /// <paramref name="items"/> (as long as the keys, or empty), each item moves with its key; items that were
    /// ascending (positions) stay ascending among equal keys.
    /// </summary>
    public void Sort(Span<ulong> keys, Span<int> items = default)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (!items.IsEmpty && items.Length != keys.Length)
            throw new ArgumentException($"There are {items.Length} items for {keys.Length} keys.", nameof(items));
        if (keys.Length >= SortBreakEven && keys.Length > 1 && IsAccelerated)
        {
            lock (_deviceLock)
            {
                if (_sort is { } sort && TrySort(sort, keys, items))
                {
                    LastSortRoute = BatchRoute.Device;
                    return;
                }
            }
        }
        CpuSort.Sort(keys, items);
        LastSortRoute = BatchRoute.Cpu;
    }

    private bool TrySort(DeviceRadixSort sort, Span<ulong> keys, Span<int> items)
    {
        try
        {
            sort.Sort(keys, items);
            LastTransferTime = sort.LastTransferTime;
            return true;
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            Fail(e);
            return false;
        }
    }

    /// <summary>
    /// Finds the leaf of each of the first <paramref name="n"/> probe prefixes on the device into <see cref="_leaves"/>,
    /// after bringing the device's directory up to this snapshot; false (CPU path) when the device failed.
    /// </summary>
    private bool TryFindLeaves(Tree tree, int n, out LeafDirectory directory)
    {
        // Engine calls stay outside the device's try: their exceptions (an ended transaction, corruption) are the caller's.
        var device = _directory!;
        bool stale = device.Directory is not { } current || !current.IsCurrentFor(tree);
        directory = stale ? tree.GetLeafDirectory() : device.Directory!;
        try
        {
            long started = Stopwatch.GetTimestamp();
            if (stale) device.Refresh(directory);
            // The hints must come from the copy of this very directory, which the engine then checks against the
            // transaction: leaves found in another snapshot's structure never reach a result.
            if (!ReferenceEquals(device.Directory, directory))
                throw new InvalidOperationException("The device's leaf directory is not the one the lookups are checked against.");
            var probes = _buffers!.Probes(n);
            var leaves = _buffers.Leaves(n);
            ((ArrayView<ulong>)probes).CopyFromCPU(_probes.AsSpan(0, n));
            long uploaded = Stopwatch.GetTimestamp();
            _findLeaves!(n, device.View, probes, leaves);
            _accelerator!.Synchronize();
            long searched = Stopwatch.GetTimestamp();
            ((ArrayView<int>)leaves).CopyToCPU(_leaves.AsSpan(0, n));
            LastTransferTime = Stopwatch.GetElapsedTime(started, uploaded) + Stopwatch.GetElapsedTime(searched);
            return true;
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            Fail(e);
            return false;
        }
    }

    /// <summary>The device's copy of the last leaf directory searched (for tests and the benchmark: uploads, read-back); null without a device.</summary>
    internal DeviceLeafDirectory? DeviceDirectory => _directory;

    /// <summary>Measures sorts on the device and with Array.Sort from 4K keys up; the first size the device wins.</summary>
    private int CalibrateSort()
    {
        var random = new Random(1);
        for (int n = 4096; n <= 16 << 20; n *= 2)
        {
            var keys = new ulong[n];
            for (int i = 0; i < n; i++) keys[i] = (ulong)random.NextInt64();
            var copy = (ulong[])keys.Clone();
            _sort!.Sort(copy, default); // warm-up: kernels compiled, buffers grown
            copy = (ulong[])keys.Clone();
            var device = Stopwatch.StartNew();
            _sort.Sort(copy, default);
            device.Stop();
            copy = (ulong[])keys.Clone();
            var cpu = Stopwatch.StartNew();
            CpuSort.Sort(copy, default);
            cpu.Stop();
            if (device.Elapsed < cpu.Elapsed) return n;
        }
        return int.MaxValue;
    }

    /// <summary>A device call failed: every batch takes the CPU path from now on.</summary>
    private void Fail(Exception e)
    {
        UseCpu($"a device call failed ({e.GetType().Name}: {e.Message})");
        ReleaseDevice();
    }

    private void UseCpu(string reason)
    {
        DeviceName = $"none ({reason})";
        if (Interlocked.Exchange(ref _fallbackLogged, 1) == 0)
            _logger.LogWarning("StorageEngine.Gpu: {Reason}; batches run on the CPU.", reason);
        Volatile.Write(ref _accelerator, null);
    }

    private void ReleaseDevice()
    {
        _directory?.Dispose();
        _directory = null;
        _buffers?.Dispose();
        _sort?.Dispose();
        _buffers = null;
        _sort = null;
    }

    /// <summary>
    /// Measures batch lookups in <paramref name="tree"/> on the device and on the engine's CPU batch path for
    /// batches of 1K keys up, doubling to <paramref name="largestBatch"/>, and sets <see cref="LookupBreakEven"/>
    /// to the first size at which the device was faster (never, when it was not). Does nothing without a device.
    /// </summary>
    /// <returns>The new break-even.</returns>
    public int CalibrateLookups(Tree tree, int largestBatch = 4 << 20)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        ArgumentNullException.ThrowIfNull(tree);
        if (!IsAccelerated) return LookupBreakEven;
        var random = new Random(3);
        var results = new BatchLookupResults();
        int saved = LookupBreakEven;
        LookupBreakEven = 0;
        try
        {
            for (int n = 1024; n <= largestBatch; n *= 2)
            {
                var keys = new long[n];
                for (int i = 0; i < n; i++) keys[i] = random.NextInt64();
                GetMany(tree, keys, results); // warm-up: directory on the device, buffers grown
                var device = Stopwatch.StartNew();
                GetMany(tree, keys, results);
                device.Stop();
                if (LastLookupRoute != BatchRoute.Device) return LookupBreakEven = saved;
                var cpu = Stopwatch.StartNew();
                tree.GetMany(keys, results);
                cpu.Stop();
                if (device.Elapsed < cpu.Elapsed) return LookupBreakEven = n;
            }
            return LookupBreakEven = int.MaxValue;
        }
        catch
        {
            LookupBreakEven = saved;
            throw;
        }
    }

    /// <summary>Releases the device and its memory.</summary>
    public void Dispose()
    {
        lock (_deviceLock)
        {
            _disposed = true;
            ReleaseDevice();
            Volatile.Write(ref _accelerator, null);
            _ownedAccelerator?.Dispose();
            _ownedAccelerator = null;
            _context?.Dispose();
            _context = null;
        }
    }
}
