namespace StorageEngine.Paging;

/// <summary>What a page holds. Stored in <see cref="PageHeader.Flags"/>.</summary>
[Flags]
internal enum PageFlags : ushort
{
    None = 0,

    /// <summary>A B+tree leaf: keys with values or overflow references.</summary>
    Leaf = 1,

    /// <summary>A B+tree branch: separator keys with child page numbers.</summary>
    Branch = 2,

    /// <summary>A free-space bitmap page (one bit per page of its section; 1 = free).</summary>
    FreeSpaceBitmap = 4,

    /// <summary>The checkpoint header (pages 0 and 1).</summary>
    FileHeader = 8,

    /// <summary>Set on tree pages of trees whose keys are all 8-byte big-endian integers.</summary>
    FixedInt64Keys = 16,
}
