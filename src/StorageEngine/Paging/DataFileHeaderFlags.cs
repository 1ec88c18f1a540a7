namespace StorageEngine.Paging;

/// <summary>What the session that wrote a checkpoint header was doing. Stored in <see cref="DataFileHeader.Flags"/>.</summary>
[Flags]
internal enum DataFileHeaderFlags : uint
{
    None = 0,

    /// <summary>
    /// The session committed without syncing the journal (Lazy durability). After a power loss its data file
    /// may hold pages of transactions whose records were lost, so recovery rebuilds the free-space map.
    /// </summary>
    LazySession = 1,

    /// <summary>Written by the final checkpoint of a clean close: nothing after it needs recovery.</summary>
    CleanShutdown = 2,
}
