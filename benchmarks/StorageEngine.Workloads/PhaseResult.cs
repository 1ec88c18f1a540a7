namespace StorageEngine.Workloads;

/// <summary>One row of the report: one engine in one phase of one workload.</summary>
internal sealed record PhaseResult(
    string Workload, string Phase, string Engine, string Tier, int Threads,
    long Operations, long PlannedOperations, string Unit, double Seconds, double OpsPerSecond,
    double P50Micros, double P99Micros,
    long DeviceWriteBytes, long LogicalWriteBytes, double WriteAmplification,
    long DiskBytes, long LiveLogicalBytes, double SpaceAmplification,
    double PeakRssMB, double PeakRssDeltaMB, string Note)
{
    /// <summary>Engine ops/s over StorageEngine's in the same workload, phase and tier (NaN where none).</summary>
    public double RatioToStorageEngine { get; set; } = double.NaN;

    /// <summary>How many runs this row is the median of.</summary>
    public int Runs { get; set; } = 1;

    /// <summary>
    /// W7: the step's data size (keys and values loaded) over the memory limit, 0.5 to 4, which the curve chart
    /// puts on its x axis; NaN for the other workloads.
    /// </summary>
    public double DataOverMemoryLimit { get; set; } = double.NaN;
}
