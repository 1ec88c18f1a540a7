using DotNext.IO;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace StorageEngine.Cluster.Tests.Infrastructure;

/// <summary>A snapshot with an index and a term and no contents, as a leader's InstallSnapshot delivers to the log.</summary>
internal sealed class EmptySnapshot(long index, long term) : ISnapshot
{
    public long Index => index;

    public long Term => term;

    bool IDataTransferObject.IsReusable => true;

    long? IDataTransferObject.Length => 0;

    ValueTask IDataTransferObject.WriteToAsync<TWriter>(TWriter writer, CancellationToken token) => ValueTask.CompletedTask;
}
