namespace StorageEngine.Replication;

/// <summary>A page a shipped record carries as a diff.</summary>
/// <param name="Run">Index of the page's run in <see cref="ReplicatedRecord.Runs"/>.</param>
/// <param name="BasePage">The page the diff applies to, or -1 for a page of zeros.</param>
/// <param name="Offset">Where the diff lies in the reader's diff buffer.</param>
/// <param name="Length">Bytes of the diff.</param>
internal readonly record struct ShippedDiff(int Run, long BasePage, int Offset, int Length);
