using System.Buffers;
using System.Collections.Concurrent;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace StorageEngine.Cluster.Tests.Infrastructure;

/// <summary>A state machine that keeps each applied entry's payload by index; no snapshots.</summary>
internal sealed class RecordingStateMachine : IStateMachine
{
    public ConcurrentDictionary<long, byte[]> Applied { get; } = new();

    ISnapshot? ISnapshotManager.Snapshot => null;

    public ValueTask<long> ApplyAsync(LogEntry entry, CancellationToken token)
    {
        if (!entry.IsSnapshot && entry.TryGetPayload(out var payload))
            Applied[entry.Index] = payload.ToArray();
        return ValueTask.FromResult(entry.Index);
    }

    public ValueTask ReclaimGarbageAsync(long watermark, CancellationToken token) => ValueTask.CompletedTask;
}
