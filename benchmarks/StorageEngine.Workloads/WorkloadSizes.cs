namespace StorageEngine.Workloads;

/// <summary>How big each workload runs. Quick sizes are for a small machine and finish in minutes.</summary>
internal sealed record WorkloadSizes(
    long W1Items, int W1Batch,
    long W3Items, int W3Batch,
    long W4Entries, int W4Batch,
    long W5Items, long W5DurableCommits,
    long W6ValueBytes, long W6MinItems, int W6Batch,
    double W7PhaseSeconds)
{
    internal static WorkloadSizes Quick { get; } = new(
        W1Items: 1_000_000, W1Batch: 100,
        W3Items: 100_000, W3Batch: 1_000,
        W4Entries: 200_000, W4Batch: 256,
        W5Items: 100_000, W5DurableCommits: 10_000,
        W6ValueBytes: 128L << 20, W6MinItems: 131_072, W6Batch: 256,
        W7PhaseSeconds: 6);

    /// <summary>The sizes workloads.md publishes against.</summary>
    internal static WorkloadSizes Full { get; } = new(
        W1Items: 10_000_000, W1Batch: 100,
        W3Items: 1_000_000, W3Batch: 1_000,
        W4Entries: 10_000_000, W4Batch: 256,
        W5Items: 10_000_000, W5DurableCommits: 50_000,
        W6ValueBytes: 1L << 30, W6MinItems: 1_048_576, W6Batch: 256,
        W7PhaseSeconds: 30);

    internal WorkloadSizes Scale(double factor) => factor == 1 ? this : this with
    {
        W1Items = Scaled(W1Items, factor, W1Batch),
        W3Items = Scaled(W3Items, factor, W3Batch),
        W4Entries = Scaled(W4Entries, factor, W4Batch),
        W5Items = Scaled(W5Items, factor, 1000),
        W5DurableCommits = Scaled(W5DurableCommits, factor, 10),
        W6ValueBytes = Scaled(W6ValueBytes, factor, 64 << 10),
        W6MinItems = Scaled(W6MinItems, factor, W6Batch),
    };

    /// <summary>
    /// W6's item count at one value size: <see cref="W6ValueBytes"/> of values or <see cref="W6MinItems"/> items,
    /// whichever is more, in whole batches of <see cref="W6Batch"/>. The floor is for the large values: at quick
    /// sizes 128 MiB of 4 KiB values was 128 transactions, timed over 0.2-0.5 s, and two runs of the same code
    /// differed by up to 1.9x there (`925c492` and `a996267`, 2026-11-27, the 2-vCPU machine).
    /// </summary>
    internal long W6Items(int valueSize) =>
        Math.Max(W6Batch, Math.Max(W6ValueBytes / valueSize, W6MinItems) / W6Batch * W6Batch);

    private static long Scaled(long value, double factor, long multiple) =>
        Math.Max(multiple, (long)Math.Round(value * factor / multiple) * multiple);

    internal string Describe() =>
        $"W1/W2 {W1Items:N0} items in {W1Items / W1Batch:N0} txns of {W1Batch}; W3 {W3Items:N0} x 4 KiB in txns of {W3Batch:N0}; " +
        $"W4 N = {W4Entries:N0} x 1 KiB, batch {W4Batch}; W5 {W5Items:N0} items per write phase, {W5DurableCommits:N0} durable commits per thread count; " +
        $"W6 {W6ValueBytes >> 20:N0} MiB of values or {W6MinItems:N0} items per value size, whichever is more, txns of {W6Batch}; W7 {W7PhaseSeconds:0.#} s per measured phase";
}
