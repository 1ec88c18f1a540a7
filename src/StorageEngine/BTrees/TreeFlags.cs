namespace StorageEngine.BTrees;

/// <summary>Properties of a tree fixed at its creation. Stored in <see cref="TreeHeader.Flags"/>.</summary>
[Flags]
internal enum TreeFlags : uint
{
    None = 0,

    /// <summary>Every key is 8 bytes, a big-endian integer; searches compare them as integers.</summary>
    FixedInt64Keys = 1,
}
