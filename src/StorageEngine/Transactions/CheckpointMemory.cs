namespace StorageEngine.Transactions;

/// <summary>
/// The default of <see cref="StorageEnvironmentOptions.CheckpointMemoryThreshold"/>: sized from the memory the
/// process may use, so that a machine with memory to spare holds more pages between checkpoints.
/// </summary>
/// <remarks>
/// Why it pays: a checkpoint writes every page changed since the last one whole, so under random writes a small
/// threshold rewrites most of a tree's leaves at every checkpoint. Holding more pages lets more versions of a page be
/// replaced in memory before one is written (docs/tuning.md has the measurements). The memory stays a fraction of
/// what the process may use, and a container's limit counts.
/// </remarks>
internal static class CheckpointMemory
{
    /// <summary>The most the default grows to.</summary>
    public const long MaxDefault = 128L << 20;

    /// <summary>The memory this process may use (physical memory, or the container's limit), read once.</summary>
    private static readonly long s_available = GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;

    /// <summary>The threshold <paramref name="options"/> set, or the default for its <see cref="StorageEnvironmentOptions.CheckpointThreshold"/>.</summary>
    public static long ThresholdFor(StorageEnvironmentOptions options) =>
        options.CheckpointMemoryThreshold ?? DefaultFor(options.CheckpointThreshold, s_available);

    /// <summary>The least the default shrinks to in a small process.</summary>
    public const long MinDefault = 4L << 20;

    /// <summary>
    /// With the default <paramref name="checkpointThreshold"/> (32 MiB), a 128th of <paramref name="availableMemory"/>,
    /// at least the threshold and at most four times it (128 MiB); but in a small process (under 768 MiB, a container's
    /// limit say) at most a 24th of its memory, and at least <see cref="MinDefault"/>. A threshold someone chose is kept
    /// as it is: it triggered on memory too before this existed, and whoever lowered it to checkpoint often still gets that.
    /// </summary>
    /// <remarks>
    /// Why a 24th: the page memory the engine keeps comes to about six times the threshold (the buffer pool keeps up to
    /// four, the pages waiting for a checkpoint about two), and a quarter of a small process's memory leaves the rest
    /// to the page cache, which holds the data file's pages. A container's limit counts the page cache: in a 256 MiB
    /// memory cgroup, 1-put updates of a 1 KiB-value tree half the limit's size ran at 25-30k per second with 32 MiB
    /// (23,000 major faults per 100,000 updates) and 48k with 4 or 8 MiB (none), against 61-64k outside the cgroup.
    /// </remarks>
    public static long DefaultFor(long checkpointThreshold, long availableMemory)
    {
        if (checkpointThreshold != StorageEnvironmentOptions.DefaultCheckpointThreshold) return Math.Max(1, checkpointThreshold);
        long available = Math.Max(0, availableMemory);
        long threshold = Math.Clamp(available / 128, checkpointThreshold, Math.Min(MaxDefault, 4 * checkpointThreshold));
        return available > 0 ? Math.Min(threshold, Math.Max(MinDefault, available / 24)) : threshold;
    }
}
