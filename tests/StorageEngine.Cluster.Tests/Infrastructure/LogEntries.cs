using System.Text;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace StorageEngine.Cluster.Tests.Infrastructure;

/// <summary>What the tests of the Raft log alone append, and the log options they open it with.</summary>
internal static class LogEntries
{
    /// <summary>An entry of term 1 whose payload is <see cref="Payload"/> of <paramref name="index"/>.</summary>
    public static BinaryLogEntry Entry(long index) => new() { Content = Encoding.UTF8.GetBytes(Payload(index)), Term = 1 };

    /// <summary>The payload of the entry made for <paramref name="index"/>.</summary>
    public static string Payload(long index) => $"entry {index}";

    /// <summary>A log in <paramref name="location"/> checked by CRC-32, as the cluster opens it, with <paramref name="memory"/>.</summary>
    public static WriteAheadLog.Options Options(string location, WriteAheadLog.MemoryManagementStrategy memory) => new()
    {
        Location = location,
        HashAlgorithm = WriteAheadLog.IntegrityHashAlgorithm.Crc32,
        MemoryManagement = memory,
    };
}
