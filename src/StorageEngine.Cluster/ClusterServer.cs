using System.Buffers.Binary;
using System.Net.Sockets;
using System.Text;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using StorageEngine.Cluster.Protocol;

namespace StorageEngine.Cluster;

/// <summary>
/// Serves <see cref="ClusterClient"/>s for one node on its <see cref="ClusterMember.ClientEndPoint"/>: a small
/// length-prefixed binary protocol over TCP (one request at a time per connection). A follower answers a write
/// with the leader's identity; reads are served by any node with the consistency the client asks for.
/// </summary>
public sealed class ClusterServer : IAsyncDisposable
{
    private readonly ClusterNode _node;
    private readonly TcpListener _listener;
    private readonly CancellationTokenSource _stopping = new();
    private readonly ILogger _logger;
    private readonly List<Task> _connections = [];
    private Task _acceptLoop = Task.CompletedTask;

    /// <summary>Creates a server for <paramref name="node"/>; call <see cref="Start"/> to listen.</summary>
    public ClusterServer(ClusterNode node, ILoggerFactory? loggerFactory = null)
    {
        ArgumentNullException.ThrowIfNull(node);
        _node = node;
        _listener = new TcpListener(node.Self.ClientEndPoint);
        _logger = (loggerFactory ?? NullLoggerFactory.Instance).CreateLogger<ClusterServer>();
    }

    /// <summary>How long a write may wait to be committed before the client is told its outcome is unknown; default 10 s.</summary>
    public TimeSpan WriteTimeout { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>How long a linearizable read may wait for the read barrier before the client is told no majority is reachable; default 5 s.</summary>
    public TimeSpan ReadBarrierTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>Starts listening.</summary>
    /// <exception cref="SocketException">The endpoint is in use.</exception>
    public void Start()
    {
        _listener.Start();
        _acceptLoop = AcceptAsync();
    }

    private async Task AcceptAsync()
    {
        while (!_stopping.IsCancellationRequested)
        {
            TcpClient client;
            try
            {
                client = await _listener.AcceptTcpClientAsync(_stopping.Token).ConfigureAwait(false);
            }
            catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException)
            {
                return;
            }
            client.NoDelay = true;
            lock (_connections)
            {
                _connections.RemoveAll(t => t.IsCompleted);
                _connections.Add(ServeAsync(client));
            }
        }
    }

    private async Task ServeAsync(TcpClient client)
    {
        using (client)
        {
            var stream = client.GetStream();
            try
            {
                while (await Frames.ReadAsync(stream, _stopping.Token).ConfigureAwait(false) is { } request)
                {
                    var (status, body) = await HandleAsync(request).ConfigureAwait(false);
                    await Frames.WriteAsync(stream, (byte)status, body, _stopping.Token).ConfigureAwait(false);
                }
            }
            catch (Exception e) when (e is IOException or OperationCanceledException or ObjectDisposedException or SocketException)
            {
                _logger.LogDebug("Client connection closed: {Reason}", e.Message);
            }
        }
    }

    private async Task<(ResponseStatus, byte[])> HandleAsync(byte[] request)
    {
        try
        {
            switch ((RequestKind)request[0])
            {
                case RequestKind.Write:
                {
                    using var timeout = CancellationTokenSource.CreateLinkedTokenSource(_stopping.Token);
                    timeout.CancelAfter(WriteTimeout);
                    long index = await _node.WriteEncodedAsync(request[1..], timeout.Token).ConfigureAwait(false);
                    var body = new byte[8];
                    BinaryPrimitives.WriteInt64LittleEndian(body, index);
                    return (ResponseStatus.Ok, body);
                }
                case RequestKind.Get:
                {
                    var (consistency, tree, rest) = ParseTreeRequest(request);
                    if (rest.Length == 0) throw new FormatException("A get request has no key.");
                    byte[] key = rest.ToArray();
                    byte[]? value = await ReadAsync(tx => tx.TryOpenTree(tree, out var t) ? t.Get(key) : null, consistency).ConfigureAwait(false);
                    if (value is null) return (ResponseStatus.Ok, [0]);
                    var body = new byte[1 + value.Length];
                    body[0] = 1;
                    value.CopyTo(body, 1);
                    return (ResponseStatus.Ok, body);
                }
                case RequestKind.Count:
                {
                    var (consistency, tree, _) = ParseTreeRequest(request);
                    long count = await ReadAsync(tx => tx.TryOpenTree(tree, out var t) ? t.Count : 0, consistency).ConfigureAwait(false);
                    var body = new byte[8];
                    BinaryPrimitives.WriteInt64LittleEndian(body, count);
                    return (ResponseStatus.Ok, body);
                }
                case RequestKind.Status:
                    return (ResponseStatus.Ok, Encoding.UTF8.GetBytes(_node.DescribeState()));
                default:
                    return (ResponseStatus.Refused, Encoding.UTF8.GetBytes($"Unknown request kind {request[0]}."));
            }
        }
        catch (NotLeaderException e)
        {
            return (ResponseStatus.NotLeader, Encoding.UTF8.GetBytes(e.Leader?.ToString() ?? ""));
        }
        catch (WriteOutcomeUnknownException e)
        {
            return (ResponseStatus.OutcomeUnknown, Encoding.UTF8.GetBytes(e.Message));
        }
        catch (QuorumUnavailableException e)
        {
            return (ResponseStatus.Unavailable, Encoding.UTF8.GetBytes(e.Message));
        }
        catch (Exception e) when (e is ArgumentException or FormatException)
        {
            return (ResponseStatus.Refused, Encoding.UTF8.GetBytes(e.Message));
        }
        catch (Exception e)
        {
            _logger.LogWarning("A client request failed: {Reason}", e.Message);
            return (ResponseStatus.Failed, Encoding.UTF8.GetBytes($"{e.GetType().Name}: {e.Message}"));
        }
    }

    private async Task<T> ReadAsync<T>(Func<ReadTransaction, T> read, ReadConsistency consistency)
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(_stopping.Token);
        timeout.CancelAfter(ReadBarrierTimeout);
        try
        {
            return await _node.ReadAsync(read, consistency, timeout.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException e) when (timeout.IsCancellationRequested && !_stopping.IsCancellationRequested)
        {
            throw new QuorumUnavailableException($"The read barrier did not pass within {ReadBarrierTimeout}.", e);
        }
    }

    private static (ReadConsistency, string, ReadOnlyMemory<byte>) ParseTreeRequest(byte[] request)
    {
        if (request.Length < 3 || request[1] > (byte)ReadConsistency.Local || request.Length < 3 + request[2] || request[2] == 0)
            throw new FormatException("A read request is truncated.");
        int nameLength = request[2];
        return ((ReadConsistency)request[1], Encoding.UTF8.GetString(request, 3, nameLength), request.AsMemory(3 + nameLength));
    }

    /// <summary>Stops listening and closes every connection.</summary>
    public async ValueTask DisposeAsync()
    {
        if (_stopping.IsCancellationRequested) return;
        await _stopping.CancelAsync().ConfigureAwait(false);
        _listener.Stop();
        await _acceptLoop.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        Task[] connections;
        lock (_connections) connections = [.. _connections];
        await Task.WhenAll(connections).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        _listener.Dispose();
        _stopping.Dispose();
    }
}
