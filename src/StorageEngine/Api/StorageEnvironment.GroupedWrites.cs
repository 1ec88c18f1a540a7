using System.Runtime.ExceptionServices;

namespace StorageEngine;

// Batches from many threads, applied together: the write group of LevelDB and RocksDB, over explicit transactions.
public sealed partial class StorageEnvironment
{
    private readonly GroupedWrites _groupedWrites = new();
    private Action<GroupedWrites.Group>? _applyGroup;

    /// <summary>The queue of <see cref="Write"/>, for tests.</summary>
    internal GroupedWrites GroupedWriteQueue => _groupedWrites;

    /// <summary>
    /// Applies <paramref name="batch"/> to the tree named <paramref name="treeName"/> as one atomic write, and returns
    /// once it is committed (durable as <see cref="StorageEnvironmentOptions.Durability"/> says). Batches written
    /// at the same time from other threads are applied in the same write transaction, each as a whole or not at
    /// all, in the order they were queued: several threads writing small batches (a put, a delete) so share one
    /// commit and one hand-off of the write lock, where each would otherwise begin and commit its own transaction.
    /// The batch must not change until the call returns; it is left as it was.
    /// </summary>
    /// <remarks>
    /// A batch that is refused (see the exceptions) changes nothing and does not stop the others of its group. A
    /// failure of the group's transaction itself (a full disk, a closed environment) reaches every caller in the
    /// group, whose batches stand or fall together: none is applied, or, where writing the journal failed, all of
    /// them may or may not survive a reopen, as <see cref="WriteTransaction.Commit"/> says. Not for a thread that
    /// holds a write transaction: it would wait for itself, so it is refused.
    /// </remarks>
    /// <exception cref="ArgumentNullException"><paramref name="treeName"/> or <paramref name="batch"/> is null.</exception>
    /// <exception cref="ArgumentException">A key or value of the batch is out of bounds for the tree (nothing of the batch is applied).</exception>
    /// <exception cref="InvalidOperationException">
    /// No tree is named <paramref name="treeName"/>; the calling thread holds a write transaction; or the environment is
    /// read-only.
    /// </exception>
    /// <exception cref="ObjectDisposedException">The environment is closed.</exception>
    /// <exception cref="TimeoutException">Another write transaction held the environment past <see cref="StorageEnvironmentOptions.WriteTimeout"/>.</exception>
    /// <exception cref="StorageException">The commit failed; see <see cref="WriteTransaction.Commit"/>.</exception>
    public void Write(string treeName, WriteBatch batch)
    {
        ArgumentNullException.ThrowIfNull(treeName);
        ArgumentNullException.ThrowIfNull(batch);
        if (NestedWriter() is { } writer)
            throw new InvalidOperationException(
                $"This thread holds the write transaction of the environment in '{Directory}' (transaction {writer.TransactionId}); " +
                "apply the batch through it (Tree.Apply), or commit it before calling Write.");
        _groupedWrites.Write(treeName, batch, _applyGroup ??= ApplyGroup);
    }

    /// <summary>
    /// The leader's transaction for a group of batches: each applied whole or refused alone, then one commit; the
    /// lead passes on once it is committed in memory, and this returns once it is durable.
    /// </summary>
    private void ApplyGroup(GroupedWrites.Group group)
    {
        using var transaction = BeginWrite();
        bool changed = false;
        int applied = 0;
        do
        {
            for (; applied < group.Entries.Count; applied++) changed |= ApplyBatch(transaction, group.Entries[applied]);
        }
        // Batches queued while the write lock was taken or the group applied join it.
        while (group.TakeMore());
        if (changed) transaction.CommitThen(afterMemoryCommit: group.HandOff);
    }

    /// <summary>Applies one batch of a group, or records why it is refused; true when the batch changed something.</summary>
    private bool ApplyBatch(WriteTransaction transaction, GroupedWrites.Entry entry)
    {
        if (!transaction.TryOpenTree(entry.TreeName, out var tree))
        {
            entry.Failure = ExceptionDispatchInfo.Capture(new InvalidOperationException(
                $"The environment in '{Directory}' has no tree named '{entry.TreeName}'; create it in a write transaction first."));
            return false;
        }
        try
        {
            tree.Apply(entry.Batch);
            return entry.Batch.Count > 0;
        }
        catch (ArgumentException e)
        {
            // Apply checks every key and value before it changes anything.
            entry.Failure = ExceptionDispatchInfo.Capture(e);
            return false;
        }
    }
}
