using System.Buffers.Binary;
using System.Diagnostics;
using System.Net.Sockets;
using System.Text;
using StorageEngine.Cluster.Protocol;

namespace StorageEngine.Cluster;

/// <summary>
/// A client of a cluster's <see cref="ClusterServer"/>s. It keeps one connection, sends writes to the leader
/// (following a follower's answer naming it, trying the members in turn while none is known) and reads to any
/// node. Calls are serialized: use one client per concurrent caller.
/// </summary>
public sealed class ClusterClient : IAsyncDisposable
{
    private static readonly TimeSpan RetryPause = TimeSpan.FromMilliseconds(50);
    private readonly IReadOnlyList<ClusterMember> _members;
    private readonly SemaphoreSlim _gate = new(1, 1);
    private ClusterMember? _connectedTo;
    private TcpClient? _connection;
    private Stream? _stream;
    private int _next;

    /// <summary>Creates a client of the cluster made of <paramref name="members"/>; connects on first use.</summary>
    public ClusterClient(IEnumerable<ClusterMember> members)
    {
        ArgumentNullException.ThrowIfNull(members);
        _members = members.ToList();
        if (_members.Count == 0) throw new ArgumentException("A cluster has at least one member.", nameof(members));
        _next = Random.Shared.Next(_members.Count);
    }

    /// <summary>How long one call may spend finding a leader, reconnecting and retrying; default 10 s.</summary>
    public TimeSpan Timeout { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>The member the client is connected to; null before the first call or after a failure.</summary>
    public ClusterMember? ConnectedTo => _connectedTo;

    /// <summary>
    /// Replicates <paramref name="batch"/> through the leader and returns its log index once committed and applied.
    /// </summary>
    /// <exception cref="WriteOutcomeUnknownException">The request reached a node but the answer was lost (the node died, the connection broke) or the node could not tell whether the write was committed: it may or may not be applied.</exception>
    /// <exception cref="TimeoutException">No leader took the write within <see cref="Timeout"/>: it was not applied.</exception>
    /// <exception cref="ArgumentException">The batch is empty or refused (a key or value too large).</exception>
    public async Task<long> WriteAsync(ClusterBatch batch, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(batch);
        if (batch.Count == 0) throw new ArgumentException("The batch is empty; add a put or a delete first.", nameof(batch));
        var request = new byte[1 + WriteCommandSize(batch)];
        request[0] = (byte)RequestKind.Write;
        batch.Encode(Guid.NewGuid()).CopyTo(request, 1);
        var (_, body) = await SendAsync(request, isWrite: true, cancellationToken).ConfigureAwait(false);
        return BinaryPrimitives.ReadInt64LittleEndian(body);
    }

    /// <summary>Reads the value of <paramref name="key"/> in <paramref name="tree"/>; null when absent.</summary>
    /// <exception cref="TimeoutException">No node could serve the read within <see cref="Timeout"/>.</exception>
    public async Task<byte[]?> GetAsync(string tree, byte[] key, ReadConsistency consistency = ReadConsistency.Linearizable, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(key);
        if (key.Length == 0) throw new ArgumentException("A key is at least 1 byte long.", nameof(key));
        var (_, body) = await SendAsync(TreeRequest(RequestKind.Get, tree, consistency, key), isWrite: false, cancellationToken).ConfigureAwait(false);
        return body[0] == 0 ? null : body[1..];
    }

    /// <summary>Reads UTF-8 text, for samples and tests.</summary>
    public async Task<string?> GetAsync(string tree, string key, ReadConsistency consistency = ReadConsistency.Linearizable, CancellationToken cancellationToken = default) =>
        await GetAsync(tree, Encoding.UTF8.GetBytes(key), consistency, cancellationToken).ConfigureAwait(false) is { } value ? Encoding.UTF8.GetString(value) : null;

    /// <summary>The number of entries in <paramref name="tree"/> (0 when it does not exist).</summary>
    /// <exception cref="TimeoutException">No node could serve the read within <see cref="Timeout"/>.</exception>
    public async Task<long> CountAsync(string tree, ReadConsistency consistency = ReadConsistency.Linearizable, CancellationToken cancellationToken = default)
    {
        var (_, body) = await SendAsync(TreeRequest(RequestKind.Count, tree, consistency, []), isWrite: false, cancellationToken).ConfigureAwait(false);
        return BinaryPrimitives.ReadInt64LittleEndian(body);
    }

    /// <summary>Asks one node for its state line (role, term, leader, applied and committed index).</summary>
    /// <exception cref="IOException">The node cannot be reached.</exception>
    public static async Task<string> GetStatusAsync(ClusterMember member, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(member);
        using var client = new TcpClient { NoDelay = true };
        try
        {
            await client.ConnectAsync(member.ClientEndPoint, cancellationToken).ConfigureAwait(false);
        }
        catch (SocketException e)
        {
            throw new IOException($"Node {member} cannot be reached: {e.Message}", e);
        }
        var stream = client.GetStream();
        await Frames.WriteAsync(stream, (byte)RequestKind.Status, ReadOnlyMemory<byte>.Empty, cancellationToken).ConfigureAwait(false);
        var response = await Frames.ReadAsync(stream, cancellationToken).ConfigureAwait(false) ?? throw new IOException($"Node {member} closed the connection.");
        return Encoding.UTF8.GetString(response, 1, response.Length - 1);
    }

    private async Task<(ClusterMember, byte[])> SendAsync(byte[] request, bool isWrite, CancellationToken cancellationToken)
    {
        await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            var clock = Stopwatch.StartNew();
            string lastProblem = "no node answered";
            while (clock.Elapsed < Timeout)
            {
                cancellationToken.ThrowIfCancellationRequested();
                if (!await EnsureConnectedAsync(cancellationToken).ConfigureAwait(false))
                {
                    lastProblem = $"node {_members[_next]} refused the connection";
                    MoveOn(null);
                    await Task.Delay(RetryPause, cancellationToken).ConfigureAwait(false);
                    continue;
                }
                var member = _connectedTo!;
                byte[]? response;
                try
                {
                    await Frames.WriteAsync(_stream!, request[0], request.AsMemory(1), cancellationToken).ConfigureAwait(false);
                    response = await Frames.ReadAsync(_stream!, cancellationToken).ConfigureAwait(false);
                    if (response is null) throw new IOException("The node closed the connection.");
                }
                catch (Exception e) when (e is IOException or SocketException or ObjectDisposedException || (e is OperationCanceledException && cancellationToken.IsCancellationRequested))
                {
                    Disconnect();
                    if (isWrite)
                        throw new WriteOutcomeUnknownException($"The connection to {member} broke after the write was sent: it may or may not be applied.", e);
                    lastProblem = $"the connection to {member} broke";
                    MoveOn(null);
                    continue;
                }

                var status = (ResponseStatus)response[0];
                var body = response[1..];
                switch (status)
                {
                    case ResponseStatus.Ok:
                        return (member, body);
                    case ResponseStatus.NotLeader:
                        string leader = Encoding.UTF8.GetString(body);
                        lastProblem = $"{member} is not the leader" + (leader.Length > 0 ? $" ({leader} is)" : " and knows none");
                        var known = leader.Length > 0 ? ClusterMember.Parse(leader) : null;
                        MoveOn(known);
                        // Pause unless the answer points at another member this client can try at once.
                        if (known is null || IndexOf(known) < 0 || known.Equals(member))
                            await Task.Delay(RetryPause, cancellationToken).ConfigureAwait(false);
                        continue;
                    case ResponseStatus.OutcomeUnknown:
                    case ResponseStatus.Failed when isWrite:
                        Disconnect();
                        throw new WriteOutcomeUnknownException($"{member}: {Encoding.UTF8.GetString(body)}");
                    case ResponseStatus.Refused:
                        throw new ArgumentException($"{member} refused the request: {Encoding.UTF8.GetString(body)}");
                    default:
                        lastProblem = $"{member}: {Encoding.UTF8.GetString(body)}";
                        MoveOn(null);
                        await Task.Delay(RetryPause, cancellationToken).ConfigureAwait(false);
                        continue;
                }
            }
            throw new TimeoutException($"No node served the request within {Timeout}; last: {lastProblem}." + (isWrite ? " The write was not applied." : ""));
        }
        finally
        {
            _gate.Release();
        }
    }

    private async Task<bool> EnsureConnectedAsync(CancellationToken cancellationToken)
    {
        if (_connection is not null) return true;
        var member = _members[_next];
        var client = new TcpClient { NoDelay = true };
        try
        {
            using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            timeout.CancelAfter(TimeSpan.FromSeconds(1));
            await client.ConnectAsync(member.ClientEndPoint, timeout.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException && !cancellationToken.IsCancellationRequested)
        {
            client.Dispose();
            return false;
        }
        _connection = client;
        _stream = client.GetStream();
        _connectedTo = member;
        return true;
    }

    /// <summary>Switches to <paramref name="leader"/> when given, else to the next member.</summary>
    private void MoveOn(ClusterMember? leader)
    {
        Disconnect();
        int index = leader is null ? -1 : IndexOf(leader);
        _next = index >= 0 ? index : (_next + 1) % _members.Count;
    }

    private int IndexOf(ClusterMember member)
    {
        for (int i = 0; i < _members.Count; i++)
            if (_members[i].Equals(member)) return i;
        return -1;
    }

    private void Disconnect()
    {
        _connection?.Dispose();
        _connection = null;
        _stream = null;
        _connectedTo = null;
    }

    private static int WriteCommandSize(ClusterBatch batch) => Replication.WriteCommand.HeaderSize + batch.EncodedSize;

    private static byte[] TreeRequest(RequestKind kind, string tree, ReadConsistency consistency, byte[] key)
    {
        TreeName.Check(tree, nameof(tree));
        byte[] name = Encoding.UTF8.GetBytes(tree);
        var request = new byte[3 + name.Length + key.Length];
        request[0] = (byte)kind;
        request[1] = (byte)consistency;
        request[2] = (byte)name.Length;
        name.CopyTo(request, 3);
        key.CopyTo(request, 3 + name.Length);
        return request;
    }

    /// <summary>Closes the connection.</summary>
    public ValueTask DisposeAsync()
    {
        Disconnect();
        _gate.Dispose();
        return ValueTask.CompletedTask;
    }
}
