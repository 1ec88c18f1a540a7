namespace StorageEngine;

/// <summary>How <see cref="StorageEnvironment.BulkLoad"/> batches its commits.</summary>
public sealed class BulkLoadOptions
{
    /// <summary>Most items per write transaction. Default 100,000.</summary>
    public int BatchItems { get; set; } = 100_000;

    /// <summary>
    /// Most key and value bytes per write transaction; a batch is committed once it reaches either limit. Default
    /// 16 MiB. Larger batches commit less often but hold more dirty pages in memory and journal them in one record.
    /// </summary>
    public long BatchBytes { get; set; } = 16L << 20;

    /// <summary>Options of the tree when the load creates it; an existing tree must have the same. Default none.</summary>
    public TreeOptions TreeOptions { get; set; } = TreeOptions.None;
}
