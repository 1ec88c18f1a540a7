using System.Buffers;
using System.Collections.Concurrent;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace StorageEngine.Cluster.Tests.Infrastructure;

/// <summary>
/// A state machine that keeps each applied entry's payload by index and installs the leader's snapshots (their
/// index and term only). It can hold the next read of its snapshot until released: the log's background flusher
/// reads it first thing in each pass, so a test can stop a pass there, as a late thread on a busy machine would.
/// </summary>
internal sealed class InstallingStateMachine : IStateMachine
{
    private readonly ManualResetEventSlim _release = new(initialState: true);
    private TaskCompletionSource? _held;
    private volatile ISnapshot? _snapshot;

    public ConcurrentDictionary<long, byte[]> Applied { get; } = new();

    ISnapshot? ISnapshotManager.Snapshot
    {
        get
        {
            var snapshot = _snapshot;
            if (Interlocked.Exchange(ref _held, null) is { } held)
            {
                held.TrySetResult();
                _release.Wait();
            }
            return snapshot;
        }
    }

    /// <summary>Holds the next read of the snapshot, with the snapshot as it is when the read begins; the task completes once a reader is held.</summary>
    public Task HoldNextSnapshotRead()
    {
        _release.Reset();
        var held = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Volatile.Write(ref _held, held);
        return held.Task;
    }

    public void ReleaseHeldRead() => _release.Set();

    public ValueTask<long> ApplyAsync(LogEntry entry, CancellationToken token)
    {
        if (entry.IsSnapshot)
            _snapshot = new EmptySnapshot(entry.Index, entry.Term);
        else if (entry.TryGetPayload(out var payload))
            Applied[entry.Index] = payload.ToArray();
        return ValueTask.FromResult(entry.Index);
    }

    public ValueTask ReclaimGarbageAsync(long watermark, CancellationToken token) => ValueTask.CompletedTask;
}
