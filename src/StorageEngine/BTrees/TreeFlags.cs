namespace StorageEngine.BTrees;

/// <summary>Properties of a tree fixed at its creation. Stored in <see cref="TreeHeader.Flags"/>.</summary>
[Flags]
internal enum TreeFlags : uint
{
    None = 0,

    /// <summary>Every key is 8 bytes, a big-endian integer; searches compare them as integers.</summary>
    FixedInt64Keys = 1,

    /// <summary>
    /// Only in an entry of the tree of names, never in a tree's own header: the tree's current header is the
    /// environment state's <c>HotTree</c>, and the rest of this entry is stale (format version 2). Commits that
    /// change only that tree then leave the tree of names alone.
    /// </summary>
    HeaderInState = 0x8000_0000,
}
