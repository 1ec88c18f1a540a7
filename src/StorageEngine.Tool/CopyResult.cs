namespace StorageEngine.Tool;

/// <summary>What <see cref="EnvironmentCopier"/> copied.</summary>
/// <param name="SnapshotId">The source transaction the copy reflects.</param>
/// <param name="Trees">Trees copied.</param>
/// <param name="Entries">Entries copied.</param>
/// <param name="Before">Source statistics at the start.</param>
/// <param name="DataFileBytes">Size of the target's data file after closing it.</param>
/// <param name="JournalBytes">Size of the target's journal files after closing it.</param>
/// <param name="TargetCheck">The target's check report.</param>
internal sealed record CopyResult(long SnapshotId, int Trees, long Entries, EnvironmentStatistics Before, long DataFileBytes, long JournalBytes, CheckReport TargetCheck);
