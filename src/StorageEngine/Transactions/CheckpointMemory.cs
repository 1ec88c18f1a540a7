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

    /// <summary>
    /// With the default <paramref name="checkpointThreshold"/> (32 MiB), a 128th of <paramref name="availableMemory"/>,
    /// at least the threshold and at most four times it (128 MiB). A threshold someone chose is kept as it is: it
    /// triggered on memory too before this existed, and whoever lowered it to checkpoint often still gets that.
    /// </summary>
    public static long DefaultFor(long checkpointThreshold, long availableMemory)
    {
        if (checkpointThreshold != StorageEnvironmentOptions.DefaultCheckpointThreshold) return Math.Max(1, checkpointThreshold);
        return Math.Clamp(Math.Max(0, availableMemory) / 128, checkpointThreshold, Math.Min(MaxDefault, 4 * checkpointThreshold));
    }
}
