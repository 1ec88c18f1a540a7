using System.Net;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.Membership;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using StorageEngine.Cluster.Replication;
using RaftNotLeaderException = DotNext.Net.Cluster.Consensus.Raft.NotLeaderException;

namespace StorageEngine.Cluster;

/// <summary>
/// One member of a replicated StorageEngine: a DotNext Raft node over TCP whose log (DotNext's
/// <c>WriteAheadLog</c>) holds batches of puts and deletes, and whose state machine is a StorageEngine environment.
/// Writes go through the leader and return once a majority has the entry and this node has applied it; reads are
/// linearizable or local per call. Thread-safe.
/// </summary>
public sealed class ClusterNode : IAsyncDisposable
{
    private readonly ClusterNodeOptions _options;
    private readonly EngineStateMachine _stateMachine;
    private readonly DurableWriteAheadLog _log;
    private readonly RaftCluster _raft;
    private readonly ILogger _logger;
    private readonly LeadershipTerm _leadership;
    private int _disposed;

    private ClusterNode(ClusterNodeOptions options, EngineStateMachine stateMachine, DurableWriteAheadLog log, RaftCluster raft, LeadershipTerm leadership, ILogger logger)
    {
        _options = options;
        _stateMachine = stateMachine;
        _log = log;
        _raft = raft;
        _leadership = leadership;
        _logger = logger;
    }

    /// <summary>This node.</summary>
    public ClusterMember Self => _options.Self;

    /// <summary>Every member of the cluster.</summary>
    public IReadOnlyList<ClusterMember> Members => _options.Members;

    /// <summary>Whether this node is the leader now (it may learn otherwise at any moment).</summary>
    public bool IsLeader => !_raft.LeadershipToken.IsCancellationRequested;

    /// <summary>The leader this node knows of; null during an election or while no majority is reachable.</summary>
    public ClusterMember? Leader => MemberAt(_raft.Leader?.EndPoint);

    /// <summary>The node's current Raft term.</summary>
    public long Term => _raft.Term;

    /// <summary>The index of the last log entry this node has applied (entries without a write, such as a new leader's first entry, apply as nothing).</summary>
    public long LastAppliedIndex => _log.LastAppliedIndex;

    /// <summary>The index of the last log entry this node knows to be committed.</summary>
    public long CommitIndex => _log.LastCommittedEntryIndex;

    /// <summary>Snapshots this node received from a leader and installed since it started.</summary>
    public int SnapshotsInstalled => _stateMachine.SnapshotsInstalled;

    /// <summary>Snapshots this node took of its own environment since it started.</summary>
    public int SnapshotsTaken => _stateMachine.SnapshotsTaken;

    /// <summary>The directory of the environment a stopped node left in <paramref name="dataDirectory"/>: open it there (read-only or not) to inspect or check it.</summary>
    public static string GetEnvironmentDirectory(string dataDirectory) =>
        StateDirectory.CurrentPathOf(Path.Combine(dataDirectory, "state"));

    /// <summary>
    /// Opens the node's environment (restoring the last snapshot if the environment is behind it), replays the
    /// committed log entries it does not hold yet, and joins the cluster.
    /// </summary>
    /// <exception cref="ArgumentException">The options are inconsistent (see <see cref="ClusterNodeOptions"/>).</exception>
    /// <exception cref="EnvironmentLockedException">Another process runs a node on this data directory.</exception>
    public static async Task<ClusterNode> StartAsync(ClusterNodeOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        var loggerFactory = options.LoggerFactory ?? NullLoggerFactory.Instance;
        var logger = loggerFactory.CreateLogger<ClusterNode>();
        string dataDirectory = Path.GetFullPath(options.DataDirectory);
        Directory.CreateDirectory(dataDirectory);

        var template = new StorageEnvironmentOptions { Durability = options.Durability, LoggerFactory = options.LoggerFactory };
        var stateMachine = new EngineStateMachine(dataDirectory, template, options.SnapshotInterval, logger);
        DurableWriteAheadLog? log = null;
        RaftCluster? raft = null;
        try
        {
            await stateMachine.RecoverAsync(cancellationToken).ConfigureAwait(false);
            // Appended entries are on disk before this node acknowledges them (DurableWriteAheadLog), and
            // committed ones before they are applied (DotNext's commit waits for its flush).
            log = new DurableWriteAheadLog(new WriteAheadLog.Options
            {
                Location = Path.Combine(dataDirectory, "raft"),
                HashAlgorithm = WriteAheadLog.IntegrityHashAlgorithm.Crc32,
                MemoryManagement = options.LogMemory,
            }, stateMachine);
            await log.InitializeAsync(cancellationToken).ConfigureAwait(false);

            var configuration = new RaftCluster.TcpConfiguration(options.Self.RaftEndPoint)
            {
                LowerElectionTimeout = (int)options.LowerElectionTimeout.TotalMilliseconds,
                UpperElectionTimeout = (int)options.UpperElectionTimeout.TotalMilliseconds,
                RequestTimeout = options.RequestTimeout,
                ConnectTimeout = options.LowerElectionTimeout,
                ColdStart = false,
                // Null selects DotNext's in-memory storage, filled below with the static member list.
                ConfigurationStorage = null!,
                LoggerFactory = loggerFactory,
            };
            var storage = (InMemoryClusterConfigurationStorage<EndPoint>)configuration.ConfigurationStorage;
            var builder = storage.CreateInitialConfigurationBuilder();
            foreach (var member in options.Members)
                builder.Add(member.RaftEndPoint);
            builder.Build();

            raft = new RaftCluster(configuration) { AuditTrail = log };
            var leadership = new LeadershipTerm();
            raft.LeaderChanged += leadership.OnLeaderChanged;
            await raft.StartAsync(cancellationToken).ConfigureAwait(false);
            logger.LogInformation("Node {Self} started: applied up to {Applied}, log up to {Last}.", options.Self, stateMachine.LastAppliedIndex, log.LastEntryIndex);
            return new ClusterNode(options, stateMachine, log, raft, leadership, logger);
        }
        catch
        {
            if (raft is not null) await raft.DisposeAsync().ConfigureAwait(false);
            if (log is not null) await log.DisposeAsync().ConfigureAwait(false);
            stateMachine.Dispose();
            throw;
        }
    }

    /// <summary>Waits until a leader is known and returns it.</summary>
    /// <exception cref="TimeoutException">No leader was elected within <paramref name="timeout"/>.</exception>
    public async Task<ClusterMember> WaitForLeaderAsync(TimeSpan timeout, CancellationToken cancellationToken = default)
    {
        var leader = await _raft.WaitForLeaderAsync(timeout, cancellationToken).ConfigureAwait(false);
        return MemberAt(leader?.EndPoint) ?? throw new TimeoutException($"No leader was elected within {timeout}.");
    }

    /// <summary>
    /// Replicates <paramref name="batch"/> and returns its log index once a majority has the entry and this node
    /// has applied it (visible to reads here, durable as the log and <see cref="ClusterNodeOptions.Durability"/> promise).
    /// </summary>
    /// <exception cref="NotLeaderException">This node is not the leader, or it lost the leadership and the entry was replaced: the write was not applied; send it to <see cref="NotLeaderException.Leader"/>.</exception>
    /// <exception cref="WriteOutcomeUnknownException">The entry was appended but leadership was lost, or <paramref name="cancellationToken"/> fired, before it was committed: it may or may not be applied.</exception>
    /// <exception cref="ArgumentException">The batch is empty, or a key or value is larger than the environment takes; nothing was replicated.</exception>
    public async Task<long> WriteAsync(ClusterBatch batch, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(batch);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (batch.Count == 0) throw new ArgumentException("The batch is empty; add a put or a delete first.", nameof(batch));
        var requestId = Guid.NewGuid();
        return await ReplicateAsync(batch.Encode(requestId), requestId, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Replicates an encoded write command (from <see cref="ClusterServer"/>): checks it first, like <see cref="WriteAsync"/>.</summary>
    internal async Task<long> WriteEncodedAsync(byte[] payload, CancellationToken cancellationToken)
    {
        if (!WriteCommand.TryReadRequestId(payload, out var requestId))
            throw new ArgumentException("The payload is not a write command.", nameof(payload));
        return await ReplicateAsync(payload, requestId, cancellationToken).ConfigureAwait(false);
    }

    private async Task<long> ReplicateAsync(byte[] payload, Guid requestId, CancellationToken cancellationToken)
    {
        (_, int largestKey, int largestValue) = WriteCommand.Validate(payload);
        var environment = _stateMachine.Environment;
        if (largestKey > environment.MaxKeySize)
            throw new ArgumentException($"A key of {largestKey} bytes is longer than the environment's largest ({environment.MaxKeySize}).");
        if (largestValue > StorageEnvironment.MaxValueSize)
            throw new ArgumentException($"A value of {largestValue} bytes is larger than the environment's largest ({StorageEnvironment.MaxValueSize}).");
        // The entry carries the term this node was elected in, never the node's current term: when a higher term
        // arrives, DotNext stores it before it leaves the leader state, and an entry appended in between with the
        // new term would sit at an index where the new leader has a different entry of that same term; the logs
        // would then look equal there, and this node would apply an entry the cluster never committed.
        long term = _leadership.Term;
        if (!IsLeader || term != _raft.Term)
            throw new NotLeaderException(Leader, NotLeaderMessage());

        var pending = new PendingWrite(requestId);
        try
        {
            await _raft.ReplicateAsync(new BinaryLogEntry { Content = payload, Term = term, Context = pending }, cancellationToken).ConfigureAwait(false);
        }
        catch (RaftNotLeaderException e) when (!pending.Task.IsCompleted)
        {
            if (e.InnerException is null)
                throw new NotLeaderException(Leader, NotLeaderMessage(), e);
            throw new WriteOutcomeUnknownException("This node lost its leadership after appending the write and before it was committed: a new leader may still commit it, or drop it.", e);
        }
        catch (OperationCanceledException e) when (!pending.Task.IsCompleted)
        {
            throw new WriteOutcomeUnknownException("The write was cancelled after it was appended: it may still be committed, or dropped.", e);
        }
        catch (ObjectDisposedException e) when (!pending.Task.IsCompleted)
        {
            throw new WriteOutcomeUnknownException("The node stopped after appending the write: it may still be committed, or dropped.", e);
        }
        return await pending.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Runs <paramref name="read"/> on a snapshot of this node's environment. <see cref="ReadConsistency.Linearizable"/>
    /// first passes DotNext's read barrier, so the snapshot holds every write acknowledged before the call.
    /// </summary>
    /// <exception cref="QuorumUnavailableException">A linearizable read found no majority.</exception>
    public async Task<T> ReadAsync<T>(Func<ReadTransaction, T> read, ReadConsistency consistency = ReadConsistency.Linearizable, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(read);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (consistency == ReadConsistency.Linearizable)
        {
            try
            {
                await _raft.ApplyReadBarrierAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (QuorumUnreachableException e)
            {
                throw new QuorumUnavailableException($"Node {Self} cannot reach a majority of the cluster, so it cannot serve a linearizable read.", e);
            }
            catch (InvalidOperationException e) when (e is not QuorumUnavailableException)
            {
                throw new QuorumUnavailableException($"Node {Self} could not pass the read barrier: {e.Message}", e);
            }
        }
        else if (consistency != ReadConsistency.Local)
        {
            throw new ArgumentOutOfRangeException(nameof(consistency), consistency, "Unknown read consistency.");
        }
        // The barrier waited until the entries were applied; their commits may still be on their way to visibility.
        if (consistency == ReadConsistency.Linearizable)
            await _stateMachine.WaitVisibleAsync().WaitAsync(cancellationToken).ConfigureAwait(false);
        return ReadSnapshot(read);
    }

    /// <summary>Runs <paramref name="read"/> on a read transaction of the environment in use; again on the new one when a snapshot install replaced it meanwhile.</summary>
    private T ReadSnapshot<T>(Func<ReadTransaction, T> read)
    {
        while (true)
        {
            var environment = _stateMachine.Environment;
            try
            {
                using var transaction = environment.BeginRead();
                return read(transaction);
            }
            catch (ObjectDisposedException) when (!ReferenceEquals(environment, _stateMachine.Environment))
            {
            }
        }
    }

    /// <summary>Appends of a leader's entries that this node made durable before acknowledging them, since it started.</summary>
    public long SyncedAppends => _log.SyncedAppends;

    /// <summary>A line of facts about the node, for logs and the sample's client.</summary>
    public string DescribeState() =>
        $"node {Self} {(IsLeader ? "leader" : "follower")} term {Term} leader {Leader?.ToString() ?? "unknown"} applied {LastAppliedIndex} committed {CommitIndex} snapshots taken {SnapshotsTaken} installed {SnapshotsInstalled} synced appends {SyncedAppends}";

    /// <summary>Leaves the cluster, stops the log and closes the environment.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        try
        {
            await _raft.StopAsync(CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException)
        {
            _logger.LogDebug("Stopping the Raft node: {Reason}", e.Message);
        }
        await _raft.DisposeAsync().ConfigureAwait(false);
        await _log.DisposeAsync().ConfigureAwait(false);
        _stateMachine.Dispose();
    }

    private string NotLeaderMessage() =>
        Leader is { } leader ? $"Node {Self} is not the leader; {leader} is." : $"Node {Self} is not the leader, and no leader is known now.";

    private ClusterMember? MemberAt(EndPoint? endPoint)
    {
        if (endPoint is null) return null;
        foreach (var member in _options.Members)
            if (member.RaftEndPoint.Equals(endPoint))
                return member;
        return null;
    }
}
