// Cluster sample: a three-node replicated StorageEngine on 127.0.0.1 and a small client.
//   dotnet Cluster.dll node <0|1|2> <dataRoot>   run one node (Raft on 7101-7103, clients on 7201-7203) until SIGTERM/Ctrl+C
//   dotnet Cluster.dll load <seconds> [clients]  write through the leader, one line a second, then check every acknowledged write
//   dotnet Cluster.dll status                    each node's role, term, leader and applied index
//   dotnet Cluster.dll leader                    the index (0-2) of the leader, for scripts
//   dotnet Cluster.dll bench <seconds>           replicated writes/s and latency with 1, 4 and 16 clients, then the same
//                                                writes on a single Safe StorageEnvironment in this process (bench.sh)
// demo.sh beside this file runs all of it and kills the leader in the middle of the load.

using System.Diagnostics;
using System.Runtime.InteropServices;
using Microsoft.Extensions.Logging;
using StorageEngine.Cluster;

ClusterMember[] members = [.. new[] { 0, 1, 2 }.Select(i => ClusterMember.Parse($"127.0.0.1:{7101 + i}/{7201 + i}"))];

switch (args.FirstOrDefault())
{
    case "node" when args.Length == 3:
        return await RunNodeAsync(int.Parse(args[1]), args[2]);
    case "load" when args.Length >= 2:
        return await RunLoadAsync(double.Parse(args[1]), args.Length > 2 ? int.Parse(args[2]) : 4);
    case "bench" when args.Length == 2:
        return await Bench.RunAsync(members, TimeSpan.FromSeconds(double.Parse(args[1])));
    case "status":
        foreach (var member in members)
        {
            try { Console.WriteLine(await ClusterClient.GetStatusAsync(member)); }
            catch (IOException) { Console.WriteLine($"node {member} down"); }
        }
        return 0;
    case "leader":
        foreach (var (member, index) in members.Select((m, i) => (m, i)))
        {
            try
            {
                if ((await ClusterClient.GetStatusAsync(member)).Contains(" leader term", StringComparison.Ordinal))
                {
                    Console.WriteLine(index);
                    return 0;
                }
            }
            catch (IOException) { }
        }
        Console.Error.WriteLine("no leader now");
        return 1;
    default:
        Console.Error.WriteLine("usage: node <0|1|2> <dataRoot> | load <seconds> [clients] | status | leader | bench <seconds>");
        return 2;
}

async Task<int> RunNodeAsync(int index, string dataRoot)
{
    var stop = new TaskCompletionSource();
    using var term = PosixSignalRegistration.Create(PosixSignal.SIGTERM, c => { c.Cancel = true; stop.TrySetResult(); });
    using var interrupt = PosixSignalRegistration.Create(PosixSignal.SIGINT, c => { c.Cancel = true; stop.TrySetResult(); });
    // DotNext's warnings (elections, unreachable members) go to standard error.
    using var logging = LoggerFactory.Create(builder => builder
        .AddSimpleConsole(console => { console.SingleLine = true; console.TimestampFormat = "HH:mm:ss.fff "; })
        .SetMinimumLevel(LogLevel.Warning));
    await using var node = await ClusterNode.StartAsync(new ClusterNodeOptions
    {
        LoggerFactory = logging,
        Self = members[index],
        Members = members,
        DataDirectory = Path.Combine(dataRoot, $"node{index}"),
        SnapshotInterval = 2_000,
    });
    await using var server = new ClusterServer(node);
    server.Start();
    Console.WriteLine($"[node {index}] up: {node.DescribeState()}");
    string? lastLeader = null;
    while (!stop.Task.IsCompleted)
    {
        await Task.WhenAny(stop.Task, Task.Delay(200));
        string leader = node.Leader?.ToString() ?? "none";
        if (leader != lastLeader) Console.WriteLine($"[node {index}] leader is now {leader} (term {node.Term})");
        lastLeader = leader;
    }
    Console.WriteLine($"[node {index}] stopping: {node.DescribeState()}");
    return 0;
}

async Task<int> RunLoadAsync(double seconds, int clients)
{
    var acknowledged = new System.Collections.Concurrent.ConcurrentDictionary<string, string>();
    long unknown = 0, notApplied = 0;
    var clock = Stopwatch.StartNew();
    var end = TimeSpan.FromSeconds(seconds);
    var workers = Enumerable.Range(0, clients).Select(worker => Task.Run(async () =>
    {
        await using var client = new ClusterClient(members) { Timeout = TimeSpan.FromSeconds(5) };
        for (int sequence = 0; clock.Elapsed < end; sequence++)
        {
            string key = $"c{worker}-{sequence:D7}", value = $"written at {clock.Elapsed.TotalMilliseconds:0} ms";
            try
            {
                await client.WriteAsync(new ClusterBatch().Put("load", key, value));
                acknowledged[key] = value;
            }
            catch (WriteOutcomeUnknownException) { Interlocked.Increment(ref unknown); }
            catch (TimeoutException) { Interlocked.Increment(ref notApplied); }
        }
    })).ToArray();

    long last = 0;
    for (int second = 1; !Task.WhenAll(workers).IsCompleted; second++)
    {
        await Task.WhenAny(Task.WhenAll(workers), Task.Delay(TimeSpan.FromSeconds(second) - clock.Elapsed));
        long now = acknowledged.Count;
        string leader = "none";
        foreach (var member in members)
        {
            try
            {
                if ((await ClusterClient.GetStatusAsync(member)).Contains(" leader term", StringComparison.Ordinal)) leader = member.ToString();
            }
            catch (IOException) { }
        }
        Console.WriteLine($"[load] {clock.Elapsed.TotalSeconds,5:0.0}s  acknowledged {now,7}  ({now - last,5}/s)  leader {leader}  unknown outcome {Interlocked.Read(ref unknown)}");
        last = now;
    }
    await Task.WhenAll(workers);

    await using var reader = new ClusterClient(members);
    long missing = 0;
    foreach (var (key, value) in acknowledged)
        if (await reader.GetAsync("load", key) != value) missing++;
    long count = await reader.CountAsync("load");
    Console.WriteLine($"[load] {acknowledged.Count} writes acknowledged, {unknown} with unknown outcome, {notApplied} timed out unapplied; " +
                      $"{missing} acknowledged writes missing; the tree holds {count} keys (linearizable reads).");
    return missing == 0 ? 0 : 1;
}
