namespace StorageEngine.Peers;

/// <summary>
/// What a returned commit promises. Results are only comparable between engines of the same tier.
/// </summary>
public enum DurabilityTier
{
    /// <summary>The commit is on the device when it returns: it survives a power loss.</summary>
    Durable = 0,

    /// <summary>The commit is handed to the operating system: it survives a process crash, not a power loss.</summary>
    ProcessCrash = 1,

    /// <summary>No promise at all (in-memory or no write-ahead log).</summary>
    None = 2,
}
