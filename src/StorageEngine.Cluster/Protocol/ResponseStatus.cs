namespace StorageEngine.Cluster.Protocol;

/// <summary>The first byte of a response frame; what follows is the result (Ok) or a UTF-8 message.</summary>
internal enum ResponseStatus : byte
{
    Ok = 0,

    /// <summary>Not the leader; the message is the leader (<see cref="ClusterMember.ToString"/>) or empty. The write was not applied.</summary>
    NotLeader = 1,

    /// <summary>The write was appended but may or may not be committed.</summary>
    OutcomeUnknown = 2,

    /// <summary>The request was refused as malformed or too large; nothing was done.</summary>
    Refused = 3,

    /// <summary>No majority reachable for a linearizable read.</summary>
    Unavailable = 4,

    /// <summary>Anything else (the node is stopping, an I/O error); a write's outcome is unknown.</summary>
    Failed = 5,
}
