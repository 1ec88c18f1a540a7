using DotNext.Net.Cluster.Consensus.Raft.StateMachine;
using Microsoft.Extensions.Logging;

namespace StorageEngine.Cluster;

/// <summary>How <see cref="ClusterNode.StartAsync"/> runs a node.</summary>
public sealed class ClusterNodeOptions
{
    /// <summary>This node; one of <see cref="Members"/>.</summary>
    public required ClusterMember Self { get; init; }

    /// <summary>Every member of the cluster, this node included; the same list on every node (three or five make sense).</summary>
    public required IReadOnlyList<ClusterMember> Members { get; init; }

    /// <summary>
    /// The node's directory: <c>raft/</c> (DotNext's write-ahead log: entries, term and vote), <c>snapshots/</c>
    /// (backup streams) and <c>state/</c> (the StorageEngine environment). Created when missing.
    /// </summary>
    public required string DataDirectory { get; init; }

    /// <summary>
    /// Durability of the environment's commits. <see cref="DurabilityMode.Safe"/> (the default) makes every
    /// applied entry durable in the environment too; <see cref="DurabilityMode.Lazy"/> leaves that to the Raft log
    /// (an entry lost from the environment by a power loss is applied again from the log or the last snapshot).
    /// <see cref="DurabilityMode.InMemory"/> is refused: a node must keep what it applied.
    /// </summary>
    public DurabilityMode Durability { get; init; } = DurabilityMode.Safe;

    /// <summary>Applied entries between two snapshots (each a full backup stream of the environment); default 10,000.</summary>
    public long SnapshotInterval { get; init; } = 10_000;

    /// <summary>The shortest election timeout; default 150 ms. A follower that hears no leader for a random time between this and <see cref="UpperElectionTimeout"/> starts an election.</summary>
    public TimeSpan LowerElectionTimeout { get; init; } = TimeSpan.FromMilliseconds(150);

    /// <summary>The longest election timeout; default 300 ms.</summary>
    public TimeSpan UpperElectionTimeout { get; init; } = TimeSpan.FromMilliseconds(300);

    /// <summary>
    /// How long a Raft request (a vote, a batch of entries, a whole snapshot) may take, on the sender's and on
    /// the receiver's side; default 2 s. It must exceed the time to send and install a snapshot: a snapshot whose
    /// installation outlasts it is installed on the follower but counted as failed by the leader, which then
    /// resends it, and DotNext refuses a snapshot the follower already holds, so the follower would stay behind
    /// until the leader takes its next snapshot. It also bounds how fast the others give up on a leader that is
    /// alive but unresponsive (frozen, or cut off by the network): electing a new one took about eight request
    /// timeouts in the tests (a killed leader, whose connections are refused, is replaced in about a second).
    /// </summary>
    public TimeSpan RequestTimeout { get; init; } = TimeSpan.FromSeconds(2);

    /// <summary>Where DotNext and the environment log to; none by default.</summary>
    public ILoggerFactory? LoggerFactory { get; init; }

    /// <summary>
    /// Where DotNext's log keeps appended entries until it flushes them: the memory-mapped files (the default), or
    /// the process's private memory, which the tests use because a killed process then loses exactly what a power
    /// loss would (everything not yet flushed to the files).
    /// </summary>
    internal WriteAheadLog.MemoryManagementStrategy LogMemory { get; init; } = WriteAheadLog.MemoryManagementStrategy.SharedMemory;

    internal void Validate()
    {
        ArgumentNullException.ThrowIfNull(Self);
        ArgumentNullException.ThrowIfNull(Members);
        ArgumentException.ThrowIfNullOrEmpty(DataDirectory);
        if (!Members.Contains(Self))
            throw new ArgumentException($"Self ({Self}) is not one of the members ({string.Join(", ", Members)}).", nameof(Members));
        var endpoints = Members.SelectMany(m => new[] { m.RaftEndPoint, m.ClientEndPoint }).ToList();
        if (endpoints.Distinct().Count() != endpoints.Count)
            throw new ArgumentException($"Two members share an endpoint: {string.Join(", ", Members)}.", nameof(Members));
        if (Durability == DurabilityMode.InMemory)
            throw new ArgumentException("A cluster node keeps its environment on disk; use Safe or Lazy durability.", nameof(Durability));
        ArgumentOutOfRangeException.ThrowIfLessThan(SnapshotInterval, 1, nameof(SnapshotInterval));
        if (RequestTimeout <= TimeSpan.Zero)
            throw new ArgumentOutOfRangeException(nameof(RequestTimeout), RequestTimeout, "The request timeout must be positive.");
        if (LowerElectionTimeout <= TimeSpan.Zero || UpperElectionTimeout <= LowerElectionTimeout)
            throw new ArgumentOutOfRangeException(nameof(UpperElectionTimeout), $"Election timeouts must satisfy 0 < lower < upper; they are {LowerElectionTimeout} and {UpperElectionTimeout}.");
    }
}
