namespace StorageEngine;

/// <summary>
/// How far <see cref="StorageEnvironment.CompactTo(string, IProgress{CompactionProgress}?, CancellationToken)"/> has
/// come. Counts never go backwards; the last report has <see cref="EntriesCopied"/> equal to
/// <see cref="TotalEntries"/> and <see cref="TreesCopied"/> equal to <see cref="TotalTrees"/>.
/// </summary>
public sealed record CompactionProgress
{
    /// <summary>Entries written to the destination so far (committed there or in the batch being built).</summary>
    public required long EntriesCopied { get; init; }

    /// <summary>Entries in all trees of the source snapshot.</summary>
    public required long TotalEntries { get; init; }

    /// <summary>Trees finished so far.</summary>
    public required int TreesCopied { get; init; }

    /// <summary>Trees in the source snapshot.</summary>
    public required int TotalTrees { get; init; }

    /// <summary>Key and value bytes written to the destination so far.</summary>
    public required long BytesCopied { get; init; }

    /// <summary>Share of the entries copied, from 0 to 1.</summary>
    public double Fraction => TotalEntries == 0 ? (TotalTrees == 0 ? 1 : (double)TreesCopied / TotalTrees) : (double)EntriesCopied / TotalEntries;
}
