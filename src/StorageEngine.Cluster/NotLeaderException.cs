namespace StorageEngine.Cluster;

/// <summary>
/// The node is not the leader, so it did not take the write: nothing was appended to the log, and the write can
/// be sent to <see cref="Leader"/> (or retried once a leader is known).
/// </summary>
public sealed class NotLeaderException : InvalidOperationException
{
    /// <summary>Creates the exception.</summary>
    public NotLeaderException(ClusterMember? leader, string message, Exception? innerException = null)
        : base(message, innerException) => Leader = leader;

    /// <summary>The leader this node knows of; null while none is known (an election is running or no majority is reachable).</summary>
    public ClusterMember? Leader { get; }
}
