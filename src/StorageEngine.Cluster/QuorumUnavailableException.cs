namespace StorageEngine.Cluster;

/// <summary>
/// A linearizable read could not be served: this node cannot reach a majority of the cluster (it is cut off, or
/// too many members are down), so it cannot know that what it holds is current. Local reads still work.
/// </summary>
public sealed class QuorumUnavailableException : InvalidOperationException
{
    /// <summary>Creates the exception.</summary>
    public QuorumUnavailableException(string message, Exception? innerException = null)
        : base(message, innerException)
    {
    }
}
