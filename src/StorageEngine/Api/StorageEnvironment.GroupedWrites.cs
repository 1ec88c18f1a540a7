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
    /// <exception cref="ArgumentException">
    /// <paramref name="treeName"/> is not a valid tree name (empty, longer than 255 UTF-8 bytes, or holding an unpaired
    /// surrogate); or a key or value of the batch is out of bounds for the tree (nothing of the batch is applied).
    /// </exception>
    /// <exception cref="InvalidOperationException">
    /// No tree is named <paramref name="treeName"/>; the calling thread holds a write transaction; or the environment is
    /// read-only.
    /// </exception>
    /// <exception cref="ObjectDisposedException">The environment is closed.</exception>
    /// <exception cref="TimeoutException">Another write transaction held the environment past <see cref="StorageEnvironmentOptions.WriteTimeout"/>.</exception>
    /// <exception cref="StorageException">The commit failed; see <see cref="WriteTransaction.Commit"/>.</exception>
    public void Write(string treeName, WriteBatch batch)
    {
        // Checked here, not by the group's leader: one caller's bad name must not fail the batches it is grouped with.
        TreeName.Check(treeName, nameof(treeName));
        ArgumentNullException.ThrowIfNull(batch);
        if (NestedWriter() is { } writer)
            throw new InvalidOperationException(
                $"This thread holds the write transaction of the environment in '{Directory}' (transaction {writer.TransactionId}); " +
                "apply the batch through it (Tree.Apply), or commit it before calling Write.");
        _groupedWrites.Write(treeName, batch, _applyGroup ??= ApplyGroup);
    }

    /// <summary>
    /// <see cref="Write"/> without blocking a thread while the batch waits for its group: the returned task completes
    /// once the batch is committed (durable as <see cref="StorageEnvironmentOptions.Durability"/> says), or faults with
    /// what <see cref="Write"/> would throw. Batches from <see cref="Write"/> and <see cref="WriteAsync"/> share groups.
    /// </summary>
    /// <remarks>
    /// A caller that finds no group under way leads one: it applies the group on its own thread (a few microseconds
    /// per batch, waiting for the write lock without blocking), and its journal write is awaited, not waited for.
    /// <paramref name="cancellationToken"/> is observed before the batch is queued; once queued, the batch is applied.
    /// The batch must not change until the task completes; it is left as it was.
    /// </remarks>
    /// <exception cref="ArgumentNullException"><paramref name="treeName"/> or <paramref name="batch"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="treeName"/> is not a valid tree name.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled before the batch was queued.</exception>
    public ValueTask WriteAsync(string treeName, WriteBatch batch, CancellationToken cancellationToken = default)
    {
        // Checked here, not by the group's leader: one caller's bad name must not fail the batches it is grouped with.
        TreeName.Check(treeName, nameof(treeName));
        ArgumentNullException.ThrowIfNull(batch);
        if (cancellationToken.IsCancellationRequested) return ValueTask.FromCanceled(cancellationToken);
        if (NestedWriter() is { } writer)
            return ValueTask.FromException(new InvalidOperationException(
                $"This flow holds the write transaction of the environment in '{Directory}' (transaction {writer.TransactionId}); " +
                "apply the batch through it (Tree.Apply), or commit it before calling WriteAsync."));
        return _groupedWrites.WriteAsync(treeName, batch, _applyGroupAsync ??= ApplyGroupAsync);
    }

    private Func<GroupedWrites.Group, Task>? _applyGroupAsync;

    /// <summary>
    /// The leader's transaction for a group of batches: each applied whole or refused alone, then one commit; the
    /// lead passes on once it is committed in memory, and this returns once it is durable.
    /// </summary>
    private void ApplyGroup(GroupedWrites.Group group)
    {
        using var transaction = BeginWrite();
        if (ApplyBatches(transaction, group)) transaction.CommitThen(afterMemoryCommit: group.HandOff);
    }

    /// <summary><see cref="ApplyGroup"/> for a leader that came through <see cref="WriteAsync"/>: it awaits the write lock and the journal.</summary>
    private async Task ApplyGroupAsync(GroupedWrites.Group group)
    {
        Task durable;
        using (var transaction = await BeginWriteAsync().ConfigureAwait(false))
        {
            if (!ApplyBatches(transaction, group)) return;
            durable = transaction.CommitThenAsync(group.HandOff);
        }
        await durable.ConfigureAwait(false);
    }

    /// <summary>Applies the group's batches, and those that join it meanwhile, in <paramref name="transaction"/>; true when any changed something.</summary>
    private bool ApplyBatches(WriteTransaction transaction, GroupedWrites.Group group)
    {
        bool changed = false;
        int applied = 0;
        do
        {
            for (; applied < group.Entries.Count; applied++) changed |= ApplyBatch(transaction, group.Entries[applied]);
        }
        // Batches queued while the write lock was taken or the group applied join it.
        while (group.TakeMore());
        return changed;
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
