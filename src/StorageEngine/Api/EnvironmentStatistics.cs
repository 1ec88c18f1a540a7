namespace StorageEngine;

/// <summary>A point-in-time picture of an environment's files and space, from <see cref="StorageEnvironment.GetStatistics"/>.</summary>
public sealed record EnvironmentStatistics
{
    /// <summary>Bytes per page.</summary>
    public required int PageSize { get; init; }

    /// <summary>Pages in the data file as of the last commit.</summary>
    public required long PageCount { get; init; }

    /// <summary>Pages marked free (some may still be visible to open readers).</summary>
    public required long FreePages { get; init; }

    /// <summary>Size of the data file in bytes.</summary>
    public required long DataFileBytes { get; init; }

    /// <summary>Journal files in use or kept for reuse.</summary>
    public required int JournalFiles { get; init; }

    /// <summary>
    /// Total length of those journal files in bytes. A Lazy journal's files are sparse: they take on the disk only
    /// what was written into them.
    /// </summary>
    public required long JournalBytes { get; init; }

    /// <summary>Id of the last committed transaction.</summary>
    public required long LastCommittedTransactionId { get; init; }

    /// <summary>Id of the last transaction the data file durably holds (the last checkpoint).</summary>
    public required long LastCheckpointTransactionId { get; init; }

    /// <summary>Read transactions open now.</summary>
    public required int OpenReaders { get; init; }

    /// <summary>
    /// Journal writes since the environment was opened. With concurrent committers this is less than
    /// <see cref="JournalRecords"/>: commits waiting together share one write (group commit).
    /// </summary>
    public long JournalWrites { get; init; }

    /// <summary>Journal records (one per commit that changed anything) written since the environment was opened.</summary>
    public long JournalRecords { get; init; }

    /// <summary>Bytes written to the journal since the environment was opened (record headers and page images).</summary>
    public long JournalBytesWritten { get; init; }
}
