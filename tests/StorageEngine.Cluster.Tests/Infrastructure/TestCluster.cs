using System.Diagnostics;
using System.Net;
using System.Net.Sockets;

namespace StorageEngine.Cluster.Tests.Infrastructure;

/// <summary>
/// Three (or more) node processes on loopback ports, each in its own data directory under a temporary root.
/// Knows how to find the leader, wait until every running node has applied the same entries, and read each
/// node's environment from disk once the nodes are stopped.
/// </summary>
internal sealed class TestCluster : IAsyncDisposable
{
    private readonly NodeProcess?[] _nodes;
    private readonly string _memberList;
    private readonly long _snapshotInterval;
    private readonly bool _privateLogMemory;

    private TestCluster(string root, ClusterMember[] members, long snapshotInterval, bool privateLogMemory)
    {
        _privateLogMemory = privateLogMemory;
        Root = root;
        Members = members;
        _nodes = new NodeProcess?[members.Length];
        _memberList = string.Join(",", members.Select(m => m.ToString()));
        _snapshotInterval = snapshotInterval;
    }

    public string Root { get; }

    public ClusterMember[] Members { get; }

    public int Size => Members.Length;

    /// <summary>Starts the nodes; <paramref name="privateLogMemory"/>: see <see cref="NodeProcess.StartAsync"/>.</summary>
    public static async Task<TestCluster> StartAsync(int size = 3, long snapshotInterval = 10_000, bool privateLogMemory = false)
    {
        var ports = FreePorts(2 * size);
        var members = Enumerable.Range(0, size)
            .Select(i => new ClusterMember(new IPEndPoint(IPAddress.Loopback, ports[2 * i]), new IPEndPoint(IPAddress.Loopback, ports[2 * i + 1])))
            .ToArray();
        string root = Path.Combine(Path.GetTempPath(), "se-cluster-" + Guid.NewGuid().ToString("N")[..12]);
        Directory.CreateDirectory(root);
        var cluster = new TestCluster(root, members, snapshotInterval, privateLogMemory);
        try
        {
            await Task.WhenAll(Enumerable.Range(0, size).Select(cluster.StartNodeAsync));
        }
        catch
        {
            await cluster.DisposeAsync();
            throw;
        }
        return cluster;
    }

    public string DataDirectory(int node) => Path.Combine(Root, $"node{node}");

    public bool IsRunning(int node) => _nodes[node] is { HasExited: false };

    public async Task StartNodeAsync(int node)
    {
        if (IsRunning(node)) throw new InvalidOperationException($"Node {node} is running.");
        _nodes[node]?.Dispose();
        _nodes[node] = await NodeProcess.StartAsync(DataDirectory(node), node, _memberList, _snapshotInterval, _privateLogMemory);
    }

    public void Kill(int node) => _nodes[node]!.Kill();

    /// <summary>SIGKILL to every running node before waiting for any to end: they all go down at the same moment.</summary>
    public void KillAll()
    {
        var running = Enumerable.Range(0, Size).Where(IsRunning).ToList();
        foreach (int node in running) _nodes[node]!.SendKill();
        foreach (int node in running) _nodes[node]!.Kill();
    }

    public void Pause(int node) => _nodes[node]!.Pause();

    public void Resume(int node) => _nodes[node]!.Resume();

    public Task StopNodeAsync(int node) => _nodes[node]!.StopAsync();

    public Task StopAllAsync() =>
        Task.WhenAll(Enumerable.Range(0, Size).Where(IsRunning).Select(StopNodeAsync));

    public ClusterClient NewClient(TimeSpan? timeout = null, params int[] only) =>
        new((only.Length == 0 ? Members : only.Select(i => Members[i])).ToList()) { Timeout = timeout ?? TimeSpan.FromSeconds(10) };

    /// <summary>The node's state; null when it is down or does not answer within a second (frozen).</summary>
    public async Task<NodeStatus?> StatusAsync(int node)
    {
        if (!IsRunning(node)) return null;
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(1));
        try
        {
            return NodeStatus.Parse(await ClusterClient.GetStatusAsync(Members[node], timeout.Token));
        }
        catch (Exception e) when (e is IOException or OperationCanceledException or SocketException)
        {
            return null;
        }
    }

    /// <summary>Waits until a node other than <paramref name="excluding"/> says it leads; returns its index.</summary>
    public async Task<int> WaitForLeaderAsync(TimeSpan timeout, int excluding = -1)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < timeout)
        {
            for (int i = 0; i < Size; i++)
                if (i != excluding && await StatusAsync(i) is { IsLeader: true })
                    return i;
            await Task.Delay(50);
        }
        throw new TimeoutException($"No leader within {timeout}.{Diagnostics()}");
    }

    /// <summary>Waits until every running node has applied and committed the same last index, twice in a row.</summary>
    public async Task WaitForConvergenceAsync(TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        long previous = -1;
        while (clock.Elapsed < timeout)
        {
            var statuses = new List<NodeStatus?>();
            for (int i = 0; i < Size; i++)
                if (IsRunning(i)) statuses.Add(await StatusAsync(i));
            if (statuses.All(s => s is not null) && statuses.Select(s => s!.Applied).Distinct().Count() == 1
                && statuses.All(s => s!.Committed == s.Applied))
            {
                if (statuses[0]!.Applied == previous) return;
                previous = statuses[0]!.Applied;
            }
            else
            {
                previous = -1;
            }
            await Task.Delay(200);
        }
        throw new TimeoutException($"The nodes did not converge within {timeout}.{Diagnostics()}");
    }

    /// <summary>
    /// Opens a stopped node's environment, asserts that <c>Check</c> finds it healthy, and returns every entry of
    /// every tree but the cluster's own, as "tree key value" lines in order (keys and values in hex).
    /// </summary>
    public List<string> ReadEnvironment(int node)
    {
        if (IsRunning(node)) throw new InvalidOperationException($"Node {node} is running; stop it first.");
        using var environment = StorageEnvironment.Open(ClusterNode.GetEnvironmentDirectory(DataDirectory(node)));
        var report = environment.Check();
        Assert.True(report.IsHealthy, $"node {node}: {string.Join("; ", report.Problems)}");
        var lines = new List<string>();
        using var read = environment.BeginRead();
        foreach (string name in read.GetTreeNames())
        {
            if (name == "$cluster") continue;
            using var cursor = read.OpenTree(name).CreateCursor();
            for (bool more = cursor.First(); more; more = cursor.Next())
                lines.Add($"{name} {Convert.ToHexString(cursor.Key)} {Convert.ToHexString(cursor.Value)}");
        }
        return lines;
    }

    public string Diagnostics()
    {
        var text = new System.Text.StringBuilder();
        for (int i = 0; i < Size; i++)
        {
            string output = _nodes[i]?.Output ?? "";
            string saved = Path.Combine(Path.GetTempPath(), $"{Path.GetFileName(Root)}-node{i}.log");
            File.WriteAllText(saved, output);
            string status = IsRunning(i) ? StatusAsync(i).GetAwaiter().GetResult()?.ToString() ?? "no answer" : "down";
            text.Append($"\n--- node {i} ({status}), whole output in {saved}, last lines:\n");
            text.Append(output.Length > 3000 ? output[^3000..] : output);
        }
        return text.ToString();
    }

    public async ValueTask DisposeAsync()
    {
        foreach (var node in _nodes) node?.Dispose();
        await Task.Delay(100);
        try
        {
            Directory.Delete(Root, recursive: true);
        }
        catch (IOException)
        {
        }
    }

    private static int[] FreePorts(int count)
    {
        var listeners = Enumerable.Range(0, count).Select(_ => new TcpListener(IPAddress.Loopback, 0)).ToList();
        foreach (var listener in listeners) listener.Start();
        int[] ports = [.. listeners.Select(l => ((IPEndPoint)l.LocalEndpoint).Port)];
        foreach (var listener in listeners) listener.Stop();
        return ports;
    }
}
