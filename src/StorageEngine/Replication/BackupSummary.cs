namespace StorageEngine;

/// <summary>What a finished backup wrote, or a finished restore read.</summary>
public sealed record BackupSummary
{
    /// <summary>
    /// The transaction the backup holds: the restored environment's
    /// <see cref="StorageEnvironment.LastCommittedTransactionId"/>, and where journal shipping resumes from.
    /// </summary>
    public required long TransactionId { get; init; }

    /// <summary>Identity of the environment the backup was taken from (a restored copy keeps it).</summary>
    public required long EnvironmentId { get; init; }

    /// <summary>Bytes per page.</summary>
    public required int PageSize { get; init; }

    /// <summary>Pages of the data file (used or free) as of <see cref="TransactionId"/>.</summary>
    public required long PageCount { get; init; }

    /// <summary>Pages the stream carried: those the trees use.</summary>
    public required long PagesCopied { get; init; }

    /// <summary>Length of the backup stream in bytes.</summary>
    public required long StreamBytes { get; init; }
}
