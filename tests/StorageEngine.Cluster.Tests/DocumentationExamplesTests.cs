using System.Net;
using System.Net.Sockets;

namespace StorageEngine.Cluster.Tests;

/// <summary>
/// docs/cluster.md's example, run as written: two nodes started first, then the example's node and client.
/// The engine's DocumentationExamplesTests checks that every C# block of the docs appears in a test like this one.
/// </summary>
public sealed class DocumentationExamplesTests
{
    [Fact]
    public async Task The_cluster_guide_example_writes_and_reads_through_three_nodes()
    {
        string root = Path.Combine(Path.GetTempPath(), "se-cluster-doc-" + Guid.NewGuid().ToString("N")[..12]);
        var ports = FreePorts(6);
        string[] addresses = [.. Enumerable.Range(0, 3).Select(i => $"127.0.0.1:{ports[2 * i]}/{ports[2 * i + 1]}")];
        var others = new List<(ClusterNode Node, ClusterServer Server)>();
        try
        {
            for (int other = 1; other < 3; other++)
            {
                ClusterMember[] all = [.. addresses.Select(ClusterMember.Parse)];
                var started = await ClusterNode.StartAsync(new ClusterNodeOptions { Self = all[other], Members = all, DataDirectory = Path.Combine(root, $"node{other}") });
                var listening = new ClusterServer(started);
                listening.Start();
                others.Add((started, listening));
            }
            int self = 0;
            string dataDirectory = Path.Combine(root, "node0");

            // On each node: the same member list ("ip:raftPort/clientPort"), its own index and data directory.
            ClusterMember[] members = [.. addresses.Select(ClusterMember.Parse)];
            await using var node = await ClusterNode.StartAsync(new ClusterNodeOptions
            {
                Self = members[self],
                Members = members,
                DataDirectory = dataDirectory,
            });
            await using var server = new ClusterServer(node);
            server.Start();

            // From any process: the client finds the leader and follows it when it changes.
            await using var client = new ClusterClient(members);
            await client.WriteAsync(new ClusterBatch().Put("users", "bob", "{\"age\":27}").Delete("users", "carol"u8));
            string? bob = await client.GetAsync("users", "bob", ReadConsistency.Linearizable);

            Assert.Equal("{\"age\":27}", bob);
        }
        finally
        {
            foreach (var (started, listening) in others)
            {
                await listening.DisposeAsync();
                await started.DisposeAsync();
            }
            try { Directory.Delete(root, recursive: true); } catch (IOException) { }
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
