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

    /// <summary>
    /// The session (a Safe one) has written journal records, the first of them in the file the header names or a
    /// later one: written with the session's first record, before that commit is acknowledged. From then on the file
    /// <see cref="DataFileHeader.JournalFileNumber"/> names holds a record of the session (the one of the checkpoint,
    /// or the first), so a journal whose named file holds none was overwritten, not left by a crash before the
    /// first commit.
    /// </summary>
    JournalInUse = 4,
}
