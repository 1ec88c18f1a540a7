namespace StorageEngine.Cluster;

/// <summary>
/// The leader appended the write to its log but lost its leadership (or the caller gave up) before the write was
/// committed: it may still be committed by the next leader, or it may be dropped. Read before retrying a write
/// that must not be applied twice.
/// </summary>
public sealed class WriteOutcomeUnknownException : Exception
{
    /// <summary>Creates the exception.</summary>
    public WriteOutcomeUnknownException(string message, Exception? innerException = null)
        : base(message, innerException)
    {
    }
}
