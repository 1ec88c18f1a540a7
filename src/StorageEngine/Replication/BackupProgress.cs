namespace StorageEngine;

/// <summary>How far a backup or a restore has come; reported after every chunk of pages, never going backwards.</summary>
public sealed record BackupProgress
{
    /// <summary>The transaction whose snapshot the backup holds.</summary>
    public required long TransactionId { get; init; }

    /// <summary>Pages copied so far.</summary>
    public required long PagesCopied { get; init; }

    /// <summary>Pages the backup carries in all (the pages the snapshot's trees use).</summary>
    public required long TotalPages { get; init; }

    /// <summary>Bytes of the backup stream written (backup) or read (restore) so far.</summary>
    public required long StreamBytes { get; init; }

    /// <summary>Share of the pages copied, from 0 to 1.</summary>
    public double Fraction => TotalPages == 0 ? 1 : (double)PagesCopied / TotalPages;
}
