using System.Runtime.InteropServices;
using StorageEngine.BTrees;
using StorageEngine.Transactions;

namespace StorageEngine;

/// <summary>
/// The one write transaction of the environment. Its changes are visible to itself at once and to others
/// after <see cref="Commit"/>; disposing it without committing discards them. Values it returns stay valid
/// until its next change or its end.
/// </summary>
public sealed class WriteTransaction : Transaction, IAsyncDisposable
{
    private readonly PageWriter _pages;
    private bool _committed;
    private int _committing;
    // The hot tree (see EnvironmentState.HotTree) was deleted in this transaction.
    private bool _hotTreeDeleted;
    // What FlushTreeHeaders learned, for the environment's hints once the commit is made.
    private string? _hotName;
    private string? _soleTree;
    private PendingCommit? _pending;

    internal WriteTransaction(StorageEnvironment environment, Snapshot snapshot, PageWriter pages)
        : base(environment, snapshot, pages, guarded: true)
    {
        _pages = pages;
        // Kept here: the page writer serves the next write transaction once this one ends.
        TransactionId = pages.TransactionId;
        BeganOnThread = System.Environment.CurrentManagedThreadId;
    }

    /// <summary>The thread that began the transaction (see StorageEnvironment.NestedWriter).</summary>
    internal int BeganOnThread { get; }

    /// <inheritdoc />
    public override bool IsWritable => true;

    /// <summary>Set when BeginWrite began the transaction: which flow of execution began it (see StorageEnvironment.ClaimForFlow).</summary>
    internal long FlowToken { get; set; }

    /// <summary>The id this transaction commits as.</summary>
    public long TransactionId { get; }

    /// <summary>Opens the tree, creating it (empty) if it does not exist.</summary>
    /// <param name="name">1 to 255 UTF-8 bytes.</param>
    /// <param name="options">Fixed when the tree is created: <see cref="TreeOptions.Int64Keys"/> for 8-byte integer keys.</param>
    /// <exception cref="ArgumentException">The tree exists with other options, or the name is invalid.</exception>
    public Tree CreateTree(string name, TreeOptions options = TreeOptions.None)
    {
        Tree.CheckName(name);
        bool asOwner = Enter(Operations.CreateTree);
        try
        {
            return CreateTreeCore(name, options);
        }
        catch (Exception e) when (e is not ArgumentException && Fail(Operations.CreateTree, e))
        {
            throw;
        }
        finally
        {
            Exit(asOwner);
        }
    }

    private Tree CreateTreeCore(string name, TreeOptions options)
    {
        if (TryOpenTreeCore(name, out var existing))
        {
            if (existing.Options != options)
                throw new ArgumentException($"The tree '{name}' exists with options {existing.Options}, not {options}.", nameof(options));
            return existing;
        }
        Span<byte> key = stackalloc byte[Tree.MaxNameBytes];
        Tree.EncodeName(name, key);
        var flags = (options & TreeOptions.Int64Keys) != 0 ? TreeFlags.FixedInt64Keys : TreeFlags.None;
        var header = BTree.Create(_pages, flags);
        var tree = new Tree(this, name, NewTree(header));
        tree.MarkCreated();
        Remember(tree);
        return tree;
    }

    /// <summary>Deletes a tree and frees its pages; false when none has that name.</summary>
    public bool DeleteTree(string name)
    {
        Tree.CheckName(name);
        bool asOwner = Enter(Operations.DeleteTree);
        try
        {
            if (!TryOpenTreeCore(name, out var tree)) return false;
            tree.Drop();
            if (tree.HeaderInState) _hotTreeDeleted = true;
            return true;
        }
        catch (Exception e) when (Fail(Operations.DeleteTree, e))
        {
            throw;
        }
        finally
        {
            Exit(asOwner);
        }
    }

    /// <summary>
    /// Makes the changes durable (as the environment's <see cref="DurabilityMode"/> promises) and visible to
    /// new transactions, then ends the transaction. The next write transaction may start as soon as this one
    /// is committed in memory; commits that wait for the journal together share one journal write.
    /// </summary>
    /// <exception cref="StorageException">
    /// Writing the journal or the data file failed. Earlier commits are intact; this one may or may not survive,
    /// and the environment accepts no more writes until it is reopened.
    /// </exception>
    /// <exception cref="InvalidOperationException">
    /// The transaction changes more pages than one commit can hold; an earlier operation on it failed (the message
    /// names it; nothing is committed, dispose the transaction); or another thread is running an operation on it.
    /// </exception>
    public void Commit() => CommitThen(afterMemoryCommit: null);

    /// <summary>
    /// <see cref="Commit"/>, calling <paramref name="afterMemoryCommit"/> (which must not throw) once the
    /// transaction is committed in memory and the write lock is free, before waiting for durability: grouped writes
    /// hand the lead on there, so that the next group is built while this one's journal write runs.
    /// </summary>
    internal void CommitThen(Action? afterMemoryCommit)
    {
        var pending = CommitInMemory();
        afterMemoryCommit?.Invoke();
        if (pending is null) return;
        try
        {
            Environment.WaitDurable(pending);
        }
        finally
        {
            Environment.ExitTransaction();
        }
    }

    /// <summary>
    /// <see cref="CommitAsync"/>, calling <paramref name="afterMemoryCommit"/> (which must not throw) once the
    /// transaction is committed in memory and the write lock is free: asynchronous grouped writes hand the lead on
    /// there. The task completes once the commit is durable.
    /// </summary>
    internal Task CommitThenAsync(Action afterMemoryCommit)
    {
        var pending = CommitInMemory();
        afterMemoryCommit();
        return pending is null ? Task.CompletedTask : Environment.CompleteAsync(pending);
    }

    /// <summary>
    /// Commits the transaction in memory and ends it before returning, so that the next write transaction may
    /// start at once (on this thread or another), building on these changes; the returned task completes once
    /// they are durable (as the environment's <see cref="DurabilityMode"/> promises) and visible to new read
    /// transactions. A thread that begins its next transaction before awaiting overlaps that work with this
    /// commit's journal write, and commits that wait together share one journal write. Commits become durable
    /// and visible in the order they were made.
    /// </summary>
    /// <returns>
    /// A task that completes when the commit is durable, or faults with <see cref="StorageException"/> when
    /// writing the journal or the data file failed: earlier commits are intact, this one and every commit after
    /// it may or may not survive, and the environment accepts no more writes until it is reopened.
    /// </returns>
    /// <exception cref="InvalidOperationException">
    /// The transaction changes more pages than one commit can hold, an earlier operation on it failed (the message
    /// names it), or another thread is running an operation on it. Exceptions thrown by the call itself mean that
    /// nothing was committed.
    /// </exception>
    /// <exception cref="StorageException">The data file could not grow to hold the changes; nothing was committed.</exception>
    public ValueTask CommitAsync()
    {
        var pending = CommitInMemory();
        return pending is null ? ValueTask.CompletedTask : new ValueTask(Environment.CompleteAsync(pending));
    }

    /// <summary>
    /// Seals the changes into a commit queued for the journal and ends the transaction (the write lock is free
    /// again); null when there was nothing to commit. The caller waits for the commit, then exits the
    /// transaction that it still counts as open.
    /// </summary>
    private PendingCommit? CommitInMemory()
    {
        bool asOwner = Enter(Operations.Commit);
        try
        {
            PrepareCommit();
            // Ended before leaving: no other thread may get in between and change pages that the commit now holds.
            Dispose();
            return _pending;
        }
        catch (Exception e) when (Fail(Operations.Commit, e))
        {
            throw;
        }
        finally
        {
            Exit(asOwner);
        }
    }

    private void PrepareCommit()
    {
        if (Interlocked.Exchange(ref _committing, 1) != 0)
            throw new InvalidOperationException("The transaction was already committed (or is being committed on another thread); transactions are not thread-safe.");
        var state = Snapshot.State;
        state.TransactionId = TransactionId;
        if (_pages.DirtyCount > 0 || HasTreeChanges())
        {
            var hints = Environment.HotTreeHints;
            FlushTreeHeaders(ref state, hints);
            state.RootTree = RootTree?.Header ?? default;
            state.PageCount = _pages.PageCount;
            _pending = Environment.PrepareCommit(_pages, state);
            hints.HotName = state.HotTree.RootPage == 0 ? null : _hotName;
            hints.LastSole = _soleTree;
        }
        _committed = true;
    }

    private bool HasTreeChanges()
    {
        foreach (var tree in OpenedTrees) if (tree.IsChanged) return true;
        return false;
    }

    /// <summary>
    /// Writes the header of every changed tree into the tree of names, but the hot tree's, which goes into the new
    /// <paramref name="state"/>: changed if this transaction changed it, none if it deleted it. With no hot tree
    /// left, a tree changed alone becomes it; a tree changed alone in two commits running takes the place of a hot
    /// tree that neither changed. The hot-tree choice is made first (<see cref="SurveyOpenedTrees"/>,
    /// <see cref="DemoteHotTree"/>), the headers written after it.
    /// </summary>
    private void FlushTreeHeaders(ref EnvironmentState state, HotTreeHints hints)
    {
        var sole = SurveyOpenedTrees(ref state, hints, out int changed);
        if (sole is { HeaderInState: false } && state.HotTree.RootPage != 0 && hints.LastSole == sole.Name
            && (_hotName ?? FindHotTreeName()) is { } hotName && hotName != sole.Name)
        {
            DemoteHotTree(ref state, hotName);
        }
        var promoted = changed == 1 && state.HotTree.RootPage == 0 && sole is { HeaderInState: false } ? sole : null;
        WriteChangedHeaders(ref state, promoted);
    }

    /// <summary>
    /// Carries the hot tree's header into <paramref name="state"/> (none if deleted here), learns its name, counts
    /// the changed trees and returns the one changed alone (null if none, several, or it was deleted).
    /// </summary>
    private Tree? SurveyOpenedTrees(ref EnvironmentState state, HotTreeHints hints, out int changed)
    {
        _hotName = hints.HotName;
        if (_hotTreeDeleted) (state.HotTree, state.HotTreeName, _hotName) = (default, 0, null);
        changed = 0;
        Tree? sole = null;
        foreach (var tree in OpenedTrees)
        {
            if (tree.HeaderInState && !tree.IsDropped) _hotName = tree.Name;
            if (!tree.IsChanged) continue;
            changed++;
            sole = tree;
            if (tree.HeaderInState && !tree.IsDropped) state.HotTree = tree.BTree.Header;
        }
        if (changed != 1 || sole!.IsDropped) sole = null;
        _soleTree = sole?.Name;
        return sole;
    }

    /// <summary>Puts the hot tree <paramref name="hotName"/> back into the tree of names, so that the tree changed alone again can become hot.</summary>
    private void DemoteHotTree(ref EnvironmentState state, string hotName)
    {
        Span<byte> key = stackalloc byte[Tree.MaxNameBytes];
        int hotLength = Tree.EncodeName(hotName, key);
        if (RootTree is { } names && names.TryGet(key[..hotLength], out var stored) && stored.Length == TreeHeader.Size
            && MemoryMarshal.Read<TreeHeader>(stored) is var entry && (entry.Flags & TreeFlags.HeaderInState) != 0
            && HotTree.Resolve(state, entry, key[..hotLength]) is { } demoted)
        {
            names.Put(key[..hotLength], MemoryMarshal.AsBytes(new ReadOnlySpan<TreeHeader>(in demoted)));
            (state.HotTree, state.HotTreeName) = (default, 0);
        }
    }

    /// <summary>
    /// Writes each changed tree's header into the tree of names (a deleted tree's entry is removed), but the hot
    /// tree's; <paramref name="promoted"/> becomes the hot tree, its header in <paramref name="state"/> and marked so.
    /// </summary>
    private void WriteChangedHeaders(ref EnvironmentState state, Tree? promoted)
    {
        Span<byte> key = stackalloc byte[Tree.MaxNameBytes];
        foreach (var tree in OpenedTrees)
        {
            if (!tree.IsChanged || (tree.HeaderInState && !tree.IsDropped)) continue;
            int length = Tree.EncodeName(tree.Name, key);
            var root = RootTree ?? (RootTree = NewTree(BTree.Create(_pages, TreeFlags.None)));
            if (tree.IsDropped)
            {
                root.Delete(key[..length]);
                continue;
            }
            var header = tree.BTree.Header;
            if (ReferenceEquals(tree, promoted))
            {
                (state.HotTree, state.HotTreeName, _hotName) = (header, HotTree.NameChecksum(key[..length]), tree.Name);
                header.Flags |= TreeFlags.HeaderInState;
            }
            root.Put(key[..length], MemoryMarshal.AsBytes(new ReadOnlySpan<TreeHeader>(in header)));
        }
    }

    /// <summary>
    /// The name of the tree whose entry in the tree of names is marked <see cref="TreeFlags.HeaderInState"/>, found
    /// by walking the tree of names: once a session, when a tree is about to take the hot tree's place and no
    /// transaction of this session has opened the hot tree.
    /// </summary>
    private string? FindHotTreeName()
    {
        if (RootTree is not { } names) return null;
        var cursor = new TreeCursor(names, tracksChanges: false);
        for (bool more = cursor.First(); more; more = cursor.Next())
        {
            if (cursor.Value.Length == TreeHeader.Size && (MemoryMarshal.Read<TreeHeader>(cursor.Value).Flags & TreeFlags.HeaderInState) != 0)
                return System.Text.Encoding.UTF8.GetString(cursor.Key);
        }
        return null;
    }

    /// <summary>Discards every change and ends the transaction (the same as disposing it uncommitted).</summary>
    public void Abort() => Dispose();

    /// <summary>
    /// Ends the transaction like <see cref="Transaction.Dispose"/>, for <c>await using</c>: not committed, it is
    /// aborted, and the write lock is released before this returns, so the next writer may start at once. The task
    /// completes synchronously but in one case: when the environment was disposed while this transaction was open,
    /// the environment's close (stopping the background checkpointer, the final checkpoint and its flushes) waited
    /// for this end; here it runs on a thread-pool thread, as <see cref="StorageEnvironment.DisposeAsync"/> runs it,
    /// and the task completes once the environment is closed and its files and lock released (<see cref="Transaction.Dispose"/>
    /// runs that close on the calling thread).
    /// </summary>
    /// <remarks>
    /// It does not wait for a <see cref="CommitAsync"/>: that call ended the transaction already (this then
    /// completes at once), and the commit's durability, or its failure, is what the task it returned reports, to be
    /// awaited when the caller chooses (awaiting it after beginning the next transaction is how commits overlap).
    /// A second call, or a call after <see cref="Transaction.Dispose"/>, <see cref="Commit"/> or <see cref="Abort"/>,
    /// completes at once.
    /// </remarks>
    public ValueTask DisposeAsync()
    {
        if (!TryBeginEnd()) return ValueTask.CompletedTask;
        bool closeDue = End();
        GC.SuppressFinalize(this);
        return closeDue ? Environment.CloseIfIdleAsync() : ValueTask.CompletedTask;
    }

    private protected override void OnEnd()
    {
        if (End()) Environment.CloseIfIdle();
    }

    /// <summary>
    /// Discards what the transaction did unless committed and releases the write lock; true when this was the last
    /// transaction of a disposed environment, whose close the caller must then run.
    /// </summary>
    private bool End()
    {
        if (!_committed) Environment.FreeSpace.Abort();
        _pages.Discard();
        Environment.ReturnPageWriter(_pages);
        Environment.ReleaseWriteLock();
        // A commit waiting for its journal write still counts as open, so that the environment does not close under it.
        return _pending is null && Environment.LeaveTransaction();
    }
}
