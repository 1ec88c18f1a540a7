namespace StorageEngine.Workloads;

/// <summary>
/// Takes the device's write counter (see <see cref="DeviceWrites"/>; the process's write_bytes where the device
/// is unknown) and the peak-RSS mark at the start of a phase and turns them, with the phase's
/// <see cref="OpRun"/>, into a <see cref="PhaseResult"/>.
/// </summary>
internal sealed class PhaseMeter
{
    private readonly long _writeBytes;
    private readonly long _baselineRss;
    private readonly DeviceWrites? _device;

    private PhaseMeter(EngineRun run)
    {
        _baselineRss = run.BaselineRss;
        _device = DeviceWrites.For(run.Directory);
        _writeBytes = WrittenSoFar();
    }

    /// <summary>Starts measuring the phase of <paramref name="run"/> (the engine's directory, its RSS before it opened).</summary>
    internal static PhaseMeter Start(EngineRun run)
    {
        var meter = new PhaseMeter(run);
        ProcessStats.ResetPeakRss();
        return meter;
    }

    private long WrittenSoFar() => _device is not null ? _device.SyncAndRead() : ProcessStats.WriteBytes();

    internal PhaseResult Finish(EngineRun run, string phase, OpRun ops, int threads, long itemsPerOp, string unit,
        long logicalWriteBytes, long liveLogicalBytes, bool latencies = true, string note = "")
    {
        long now = _writeBytes < 0 ? -1 : WrittenSoFar();
        long written = now < 0 ? -1 : now - _writeBytes;
        long disk = run.Tier == Peers.DurabilityTier.None ? 0 : ProcessStats.DiskUsage(run.Directory);
        double peak = ProcessStats.PeakRss() / 1048576.0;
        if (ops.Capped) note = Join(note, $"capped at {ops.Done:N0} of {ops.Planned:N0} after {ops.Seconds:0}s");
        return new PhaseResult(
            run.Workload, phase, run.Engine.Name, run.Tier.ToString(), threads,
            ops.Done * itemsPerOp, ops.Planned * itemsPerOp, unit, ops.Seconds, ops.Done * itemsPerOp / ops.Seconds,
            latencies ? LatencyStats.Percentile(ops.SortedLatencyTicks, 50) : double.NaN,
            latencies ? LatencyStats.Percentile(ops.SortedLatencyTicks, 99) : double.NaN,
            written, logicalWriteBytes,
            logicalWriteBytes > 0 && written >= 0 ? (double)written / logicalWriteBytes : double.NaN,
            disk, liveLogicalBytes, liveLogicalBytes > 0 && disk > 0 ? (double)disk / liveLogicalBytes : double.NaN,
            peak, peak - _baselineRss / 1048576.0, note);
    }

    private static string Join(string a, string b) => a.Length == 0 ? b : a + "; " + b;
}
