namespace StorageEngine.Cluster;

/// <summary>What a read through <see cref="ClusterNode.ReadAsync{T}"/> promises.</summary>
public enum ReadConsistency
{
    /// <summary>
    /// The read sees every write acknowledged before it began, on any node: the node passes DotNext's read
    /// barrier (the leader confirms it still leads a majority; a follower learns the leader's commit index and
    /// waits until it has applied it), then reads a snapshot. Fails when no majority can be reached.
    /// </summary>
    Linearizable = 0,

    /// <summary>
    /// The read sees a consistent snapshot of what this node has applied so far, without asking anyone: fast and
    /// available without a majority, but possibly stale (a follower or a cut-off node lags behind).
    /// </summary>
    Local = 1,
}
