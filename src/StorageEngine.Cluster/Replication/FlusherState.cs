using System.Reflection;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace StorageEngine.Cluster.Replication;

/// <summary>
/// Reads the private state of the background flusher of DotNext 6.12.0's <see cref="WriteAheadLog"/>: the first
/// index it has not flushed yet, and the commit index its last checkpoint holds. DotNext offers no way to wait
/// until a commit is in the checkpoint, and <see cref="DurableWriteAheadLog"/> must (its remarks say why).
/// </summary>
/// <remarks>
/// The field names are those of 6.12.0. A DotNext without them fails at the first log opened, not at a snapshot
/// install months later, so that an upgrade looks at the workaround again (and drops it if DotNext fixed the bug).
/// </remarks>
internal static class FlusherState
{
    private const BindingFlags Private = BindingFlags.Instance | BindingFlags.NonPublic;
    private static readonly FieldInfo? AtomicField = typeof(WriteAheadLog).GetField("flusherState", Private);
    private static readonly FieldInfo? StateField = AtomicField?.FieldType.GetField("value", Private);
    private static readonly FieldInfo? UnflushedField = StateField?.FieldType.GetField("UnflushedIndex");
    private static readonly FieldInfo? FlushedCommitField = StateField?.FieldType.GetField("FlushedCommitIndex");

    /// <exception cref="NotSupportedException">This DotNext's log is not laid out as 6.12.0's.</exception>
    public static void EnsureSupported()
    {
        if (UnflushedField?.FieldType != typeof(long) || FlushedCommitField?.FieldType != typeof(long))
            throw new NotSupportedException("DurableWriteAheadLog works around a race of DotNext.Net.Cluster 6.12.0's WriteAheadLog through its private flusher state, which this DotNext does not have; check whether the race is fixed and update or drop the workaround.");
    }

    /// <summary>
    /// The flusher's state as it last wrote it. The copy is not atomic: one taken while the flusher writes may pair
    /// an old field with a new one. While no entry is replaced (the caller's case) both fields only move forward,
    /// so such a copy shows less done than there is, never more.
    /// </summary>
    public static (long UnflushedIndex, long FlushedCommitIndex) Read(WriteAheadLog log)
    {
        object state = StateField!.GetValue(AtomicField!.GetValue(log))!;
        return ((long)UnflushedField!.GetValue(state)!, (long)FlushedCommitField!.GetValue(state)!);
    }
}
