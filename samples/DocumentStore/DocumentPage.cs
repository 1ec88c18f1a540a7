namespace DocumentStore;

/// <summary>One page of an ordered listing or query.</summary>
/// <param name="Documents">The documents, in the order asked for.</param>
/// <param name="ContinuationToken">Pass it back to get the next page; null when this is the last one.</param>
public sealed record DocumentPage(IReadOnlyList<Document> Documents, string? ContinuationToken);
