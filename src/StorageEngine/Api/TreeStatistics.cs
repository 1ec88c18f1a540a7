namespace StorageEngine;

/// <summary>The shape of one tree, from <see cref="Tree.GetStatistics"/>.</summary>
/// <param name="EntryCount">Entries.</param>
/// <param name="Depth">Levels, 1 when the root is a leaf.</param>
/// <param name="BranchPages">Branch pages.</param>
/// <param name="LeafPages">Leaf pages.</param>
/// <param name="OverflowPages">Pages of values too large for a leaf.</param>
public readonly record struct TreeStatistics(long EntryCount, int Depth, long BranchPages, long LeafPages, long OverflowPages);
