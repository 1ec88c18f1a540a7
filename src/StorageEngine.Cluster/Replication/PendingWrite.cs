namespace StorageEngine.Cluster.Replication;

/// <summary>
/// The leader's handle on a write it appended: the log entry carries it as its context, and the state machine
/// completes it when it applies the entry at that index, with the index when the entry there is this write, or
/// with <see cref="Superseded"/> when a new leader replaced the entry at that index with another.
/// </summary>
internal sealed class PendingWrite(Guid requestId) : TaskCompletionSource<long>(TaskCreationOptions.RunContinuationsAsynchronously)
{
    public Guid RequestId { get; } = requestId;

    /// <summary>True when the entry at this write's index turned out to be another one: the write was not applied and never will be.</summary>
    public bool Superseded { get; private set; }

    public void MarkSuperseded()
    {
        Superseded = true;
        TrySetException(new NotLeaderException(null, "The leader lost its leadership before the write was committed, and the new leader replaced it in the log: the write was not applied; retry it."));
    }
}
