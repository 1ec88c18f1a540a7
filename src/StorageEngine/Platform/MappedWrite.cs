namespace StorageEngine.Platform;

/// <summary>What became of a write offered to an <see cref="AppendMapping"/>.</summary>
internal enum MappedWrite
{
    /// <summary>Copied into the mapping.</summary>
    Done,

    /// <summary>It ends beyond the mapped length: nothing was copied; write it instead.</summary>
    OutOfRange,

    /// <summary>The file system cannot reserve blocks ahead: nothing was copied; write it, and stop mapping.</summary>
    Unsupported,
}
