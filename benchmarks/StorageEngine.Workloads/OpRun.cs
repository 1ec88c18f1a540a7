namespace StorageEngine.Workloads;

/// <summary>What a timed loop did: operations completed, wall time, sorted per-operation latencies.</summary>
internal sealed record OpRun(long Done, long Planned, double Seconds, long[] SortedLatencyTicks, bool Capped);
