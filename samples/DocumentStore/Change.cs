namespace DocumentStore;

/// <summary>One entry of the change feed.</summary>
/// <param name="Sequence">Position in the feed: increasing, without gaps, in commit order.</param>
/// <param name="TransactionId">The engine transaction that made the change (several changes may share one).</param>
/// <param name="Collection">Collection of the document.</param>
/// <param name="Id">Id of the document.</param>
/// <param name="Kind">Put or delete.</param>
public sealed record Change(long Sequence, long TransactionId, string Collection, string Id, ChangeKind Kind);
