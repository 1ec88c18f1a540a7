namespace StorageEngine;

/// <summary>
/// How far <see cref="StorageEnvironment.BulkLoad"/> has come, reported after each committed batch. Counts never go
/// backwards; the last report counts every item.
/// </summary>
public sealed record BulkLoadProgress
{
    /// <summary>Items committed so far.</summary>
    public required long ItemsLoaded { get; init; }

    /// <summary>Key and value bytes committed so far.</summary>
    public required long BytesLoaded { get; init; }

    /// <summary>Batches (write transactions) committed so far.</summary>
    public required int BatchesCommitted { get; init; }

    /// <summary>Items in the input, where it can tell without enumerating (a collection); otherwise null.</summary>
    public long? TotalItems { get; init; }
}
