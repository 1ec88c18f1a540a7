using Microsoft.Extensions.Logging;

namespace StorageEngine.Gpu;

/// <summary>How a <see cref="GpuBackend"/> picks its device and routes batches.</summary>
public sealed class GpuOptions
{
    /// <summary>
    /// Run the kernels on ILGPU's CPU accelerator instead of a CUDA device: for tests and for trying the code path
    /// on machines without a GPU. It is about a hundred times slower than the engine's own CPU path; the
    /// break-evens are then 0 (every batch goes to the accelerator) unless set.
    /// </summary>
    public bool UseCpuAccelerator { get; init; }

    /// <summary>
    /// Smallest batch lookup sent to the device; null: the default (64K keys) or, with <see cref="Calibrate"/>, as
    /// measured at start-up. Smaller batches take the engine's CPU batch path.
    /// </summary>
    public int? LookupBreakEven { get; init; }

    /// <summary>Smallest sort sent to the device; null: the default (64K keys) or, with <see cref="Calibrate"/>, as measured at start-up.</summary>
    public int? SortBreakEven { get; init; }

    /// <summary>Measure the sort break-even on the device at start-up (a fraction of a second) when none is set.</summary>
    public bool Calibrate { get; init; } = true;

    /// <summary>Where the backend says which device it uses, or why it uses none (once).</summary>
    public ILogger? Logger { get; init; }
}
