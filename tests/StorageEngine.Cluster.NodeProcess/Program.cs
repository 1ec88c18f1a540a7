// A cluster node in its own process, for the cluster tests.
// Usage: StorageEngine.Cluster.NodeProcess <dataDirectory> <selfIndex> <member,member,...> [snapshotInterval] [durability]
// Members are ip:raftPort/clientPort. Prints "ready" once the node and its client server run; stops cleanly
// (final checkpoint, exit code 0) when standard input closes. STORAGEENGINE_CLUSTER_LOG_MEMORY=private keeps the
// Raft log's unflushed entries in private memory (the power-loss tests).

using DotNext.Net.Cluster.Consensus.Raft.StateMachine;
using Microsoft.Extensions.Logging;
using StorageEngine;
using StorageEngine.Cluster;

if (args.Length < 3)
{
    Console.Error.WriteLine("usage: <dataDirectory> <selfIndex> <member,member,...> [snapshotInterval] [safe|lazy]");
    return 2;
}
// Warnings and errors of DotNext and the node go to standard error, which the tests show when a node misbehaves.
using var loggerFactory = LoggerFactory.Create(builder => builder
    .AddSimpleConsole(console => { console.SingleLine = true; console.TimestampFormat = "HH:mm:ss.fff "; })
    .AddFilter("StorageEngine.Cluster", LogLevel.Information)
    .AddFilter("DotNext", Environment.GetEnvironmentVariable("STORAGEENGINE_CLUSTER_DEBUG") == "1" ? LogLevel.Debug : LogLevel.Warning)
    .SetMinimumLevel(LogLevel.Warning));
var members = args[2].Split(',').Select(ClusterMember.Parse).ToList();
var options = new ClusterNodeOptions
{
    DataDirectory = args[0],
    Self = members[int.Parse(args[1])],
    Members = members,
    SnapshotInterval = args.Length > 3 ? long.Parse(args[3]) : 10_000,
    Durability = args.Length > 4 && args[4] == "lazy" ? DurabilityMode.Lazy : DurabilityMode.Safe,
    LowerElectionTimeout = TimeSpan.FromMilliseconds(300),
    UpperElectionTimeout = TimeSpan.FromMilliseconds(600),
    // The product's default. At 1 s a snapshot install outlasted it on a loaded CI machine (0.8 s to the leader's
    // cancellation, the follower's install done 40 ms later): the leader counted it failed and the follower stayed
    // behind for good once the writes stopped (see ClusterNodeOptions.RequestTimeout).
    RequestTimeout = TimeSpan.FromSeconds(2),
    LoggerFactory = loggerFactory,
    // The power-loss tests: unflushed log entries live in this process's memory only, so SIGKILL loses them.
    LogMemory = Environment.GetEnvironmentVariable("STORAGEENGINE_CLUSTER_LOG_MEMORY") == "private"
        ? WriteAheadLog.MemoryManagementStrategy.PrivateMemory
        : WriteAheadLog.MemoryManagementStrategy.SharedMemory,
};
await using var node = await ClusterNode.StartAsync(options);
await using var server = new ClusterServer(node);
server.Start();
Console.WriteLine("ready");
Console.Out.Flush();
await Task.Run(() =>
{
    while (Console.ReadLine() is not null)
    {
    }
});
Console.WriteLine("stopping");
return 0;
