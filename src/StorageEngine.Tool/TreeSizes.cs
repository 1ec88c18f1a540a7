namespace StorageEngine.Tool;

/// <summary>One tree's row of <c>stats</c>: entry and page counts, key and value sizes, how full its pages are.</summary>
internal sealed record TreeSizes(string Name, long Entries, int Depth, long BranchPages, long LeafPages, long OverflowPages,
    long KeyMin, long KeyMax, long KeyBytes, long ValueMin, long ValueMax, long ValueBytes, double Fill);
