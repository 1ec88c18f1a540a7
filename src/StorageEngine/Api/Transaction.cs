using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using StorageEngine.BTrees;
using StorageEngine.Transactions;

namespace StorageEngine;

/// <summary>
/// What read and write transactions share: a snapshot of the environment and access to its named trees.
/// Not thread-safe: use a transaction from one thread at a time (it may move between threads, as async code
/// does). A write transaction refuses an operation that starts while another thread is running one on it
/// (<see cref="InvalidOperationException"/>), and once any of its operations has failed it refuses every
/// further one, <see cref="WriteTransaction.Commit"/> included: it can only be disposed.
/// </summary>
public abstract class Transaction : IDisposable
{
    // Most transactions open one tree: it is kept in _lastTree, and the dictionary is made for a second one.
    private Dictionary<string, Tree>? _trees;
    private Tree? _lastTree;
    private BTree? _rootTree;
    // An int for Interlocked: ending a transaction from two threads at once must run its end only once.
    private int _disposed;
    // Write transactions only (see Enter): admits one thread at a time into their operations.
    private readonly bool _guarded;
    private OperationGuard _guard = new();
    // Read transactions only: the activity of the thread that began it, where its operations count themselves
    // (another thread's operations count in that thread's own; see ReadActivities).
    private readonly ReadActivity? _activity;
    // The first operation that failed, set once; from then on every operation but Dispose is refused.
    private OperationFailure? _failure;

    private protected Transaction(StorageEnvironment environment, Snapshot snapshot, IPageSource pages, bool guarded)
    {
        Environment = environment;
        Snapshot = snapshot;
        Pages = pages;
        _guarded = guarded;
        if (!guarded) _activity = environment.ReadActivities.ForCurrentThread();
        LastThread = System.Environment.CurrentManagedThreadId;
    }

    /// <summary>The environment this transaction belongs to.</summary>
    public StorageEnvironment Environment { get; }

    /// <summary>
    /// The id of the snapshot this transaction reads: the last transaction committed when it began (for a write
    /// transaction, one less than the id it commits as).
    /// </summary>
    public long SnapshotId => Snapshot.TransactionId;

    internal Snapshot Snapshot { get; }

    internal IPageSource Pages { get; }

    /// <summary>True for a write transaction.</summary>
    public abstract bool IsWritable { get; }

    /// <summary>The tree of named trees, created on demand in write transactions.</summary>
    internal BTree? RootTree
    {
        get
        {
            if (_rootTree is null && Snapshot.State.RootTree.RootPage != 0) _rootTree = NewTree(Snapshot.State.RootTree);
            return _rootTree;
        }
        set => _rootTree = value;
    }

    internal OpenedTrees OpenedTrees => new(_trees, _lastTree);

    /// <summary>
    /// A tree object for <paramref name="header"/> in this transaction. A write transaction's come from its page
    /// writer, which reuses them once the transaction ends: every path to one goes through the transaction's
    /// guarded operations (see <see cref="Enter"/>), which an ended transaction refuses.
    /// </summary>
    private protected BTree NewTree(in TreeHeader header) =>
        IsWritable && Pages is PageWriter writer ? writer.RentTree(header) : new BTree(Pages, header);

    /// <summary>Opens an existing tree.</summary>
    /// <exception cref="KeyNotFoundException">No tree has that name.</exception>
    public Tree OpenTree(string name) =>
        TryOpenTree(name, out var tree) ? tree : throw new KeyNotFoundException($"The environment has no tree named '{name}'.");

    /// <summary>Opens an existing tree; false when none has that name.</summary>
    public bool TryOpenTree(string name, [NotNullWhen(true)] out Tree? tree)
    {
        Tree.CheckName(name);
        bool asOwner = Enter(Operations.TryOpenTree);
        try
        {
            return TryOpenTreeCore(name, out tree);
        }
        catch (Exception e) when (Fail(Operations.TryOpenTree, e))
        {
            throw;
        }
        finally
        {
            Exit(asOwner);
        }
    }

    /// <summary><see cref="TryOpenTree"/> for a caller that has entered the transaction (see <see cref="Enter"/>).</summary>
    private protected bool TryOpenTreeCore(string name, [NotNullWhen(true)] out Tree? tree)
    {
        tree = FindOpened(name);
        if (tree is not null) return !tree.IsDropped;
        // A read transaction shares the read-only trees of its snapshot with the other readers of it.
        var btree = IsWritable ? null : Snapshot.FindReadTree(name);
        bool headerInState = false;
        if (btree is null)
        {
            if (!TryLoadTree(name, out var header, out headerInState)) return false;
            btree = NewTree(header);
            if (!IsWritable) Snapshot.AddReadTree(name, btree);
        }
        tree = new Tree(this, name, btree) { HeaderInState = headerInState };
        Remember(tree);
        return true;
    }

    private Tree? FindOpened(string name)
    {
        if (Volatile.Read(ref _trees) is { } trees)
        {
            // Locked: threads sharing a read transaction may open trees at once, and a Dictionary read during a
            // write can loop forever. Uncontended, the lock costs a few nanoseconds on a path that is not per key.
            lock (trees) return trees.GetValueOrDefault(name);
        }
        var last = _lastTree;
        return last is not null && (ReferenceEquals(last.Name, name) || string.Equals(last.Name, name, StringComparison.Ordinal)) ? last : null;
    }

    /// <summary>
    /// Reads a tree's header from the tree of names of this transaction's snapshot, or from the snapshot's state
    /// when the entry says the header is there (<paramref name="headerInState"/>: the tree is the hot tree).
    /// </summary>
    private bool TryLoadTree(string name, out TreeHeader header, out bool headerInState)
    {
        Span<byte> key = stackalloc byte[Tree.MaxNameBytes];
        int length = Tree.EncodeName(name, key);
        var root = RootTree;
        headerInState = false;
        if (root is null || !root.TryGet(key[..length], out var stored))
        {
            header = default;
            return false;
        }
        if (stored.Length != TreeHeader.Size)
            throw Pages.Corruption(Snapshot.State.RootTree.RootPage, $"the entry of tree '{name}' is {stored.Length} bytes, not a tree header.");
        header = MemoryMarshal.Read<TreeHeader>(stored);
        if ((header.Flags & TreeFlags.HeaderInState) == 0) return true;
        headerInState = true;
        header = HotTree.Resolve(Snapshot.State, header, key[..length])
            ?? throw Pages.Corruption(Snapshot.State.RootTree.RootPage, $"the entry of tree '{name}' says its header is in the environment state, which holds none that matches.");
        return true;
    }

    /// <summary>Names of all trees, in bytewise order of their UTF-8 encoding.</summary>
    public IReadOnlyList<string> GetTreeNames()
    {
        bool asOwner = Enter(Operations.GetTreeNames);
        try
        {
            return GetTreeNamesCore();
        }
        catch (Exception e) when (Fail(Operations.GetTreeNames, e))
        {
            throw;
        }
        finally
        {
            Exit(asOwner);
        }
    }

    private List<string> GetTreeNamesCore()
    {
        var names = new List<string>();
        var root = RootTree;
        if (root is not null)
        {
            var cursor = new TreeCursor(root, IsWritable);
            for (bool more = cursor.First(); more; more = cursor.Next()) names.Add(Encoding.UTF8.GetString(cursor.Key));
        }
        // Trees created or deleted in this transaction reach the tree of names only at commit.
        bool changed = false;
        foreach (var tree in OpenedTrees)
        {
            if (tree.IsDropped) changed |= names.Remove(tree.Name);
            else if (tree.IsChanged && !names.Contains(tree.Name))
            {
                names.Add(tree.Name);
                changed = true;
            }
        }
        if (changed) names.Sort((a, b) => Encoding.UTF8.GetBytes(a).AsSpan().SequenceCompareTo(Encoding.UTF8.GetBytes(b)));
        return names;
    }

    internal void Remember(Tree tree)
    {
        // Each field read once, and the dictionary made once and then locked: threads sharing a read transaction
        // (allowed) may open trees at the same time.
        var trees = Volatile.Read(ref _trees);
        var last = _lastTree;
        if (trees is null && (last is null || last.Name == tree.Name))
        {
            _lastTree = tree;
            return;
        }
        if (trees is null)
        {
            var made = new Dictionary<string, Tree>(StringComparer.Ordinal);
            if (last is not null) made[last.Name] = last;
            trees = Interlocked.CompareExchange(ref _trees, made, null) ?? made;
        }
        lock (trees) trees[tree.Name] = tree;
    }

    /// <summary>Throws unless the transaction can still be used.</summary>
    internal void ThrowIfInactive()
    {
        if (Volatile.Read(ref _disposed) != 0) ThrowEnded();
        Environment.ThrowIfDisposed();
    }

    private void ThrowEnded() => throw new ObjectDisposedException(GetType().Name, "The transaction has ended (committed, aborted or disposed).");

    internal bool IsActive => Volatile.Read(ref _disposed) == 0;

    /// <summary>
    /// Begins an operation of <paramref name="operation"/> (a "Type.Member" name) on the transaction, to be ended
    /// by <see cref="Exit"/> with the value returned; throws unless the transaction can be used. A write transaction
    /// is entered by one thread at a time (see <see cref="OperationGuard"/>: no interlocked instruction while one
    /// thread does all the work): another thread's entry meanwhile is refused, and the refusal fails the
    /// transaction (its caller's work is missing from it). Between operations a transaction moves freely between
    /// threads, as async code needs. A read transaction only checks that it is still open: its reads change nothing
    /// shared.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool Enter(string operation)
    {
        if (!_guarded) return ReferenceEquals(EnterRead(System.Environment.CurrentManagedThreadId), _activity);
        return EnterGuarded(operation);
    }

    /// <summary>
    /// Begins a read operation on <paramref name="thread"/> (the caller's managed id): counts it in the thread's
    /// activity, then checks that the transaction is open, in this order, so that a close either sees the
    /// operation counted or the operation sees the transaction ended before it reads a page (see
    /// <see cref="ReadActivities"/>). Pass the activity returned to <see cref="ExitRead"/>.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal ReadActivity EnterRead(int thread)
    {
        var activity = _activity!;
        if (activity.Thread != thread) activity = Environment.ReadActivities.ForCurrentThread();
        // Volatile: the store and the read of the flag below stay in this order for the compiler (and for an ARM64
        // core, whose release store and acquire load keep it), as OperationGuard's owner does.
        Volatile.Write(ref activity.Inside, activity.Inside + 1);
        if (Volatile.Read(ref _disposed) != 0 || Environment.IsDisposed)
        {
            activity.Inside--;
            ThrowIfInactive();
        }
        return activity;
    }

    private bool EnterGuarded(string operation)
    {
        if (_failure is not null) ThrowFailed();
        int thread = System.Environment.CurrentManagedThreadId;
        bool asOwner = _guard.TryEnter(thread, out int inside);
        if (inside != 0) RefuseEntry(operation, inside, thread);
        if (Volatile.Read(ref _disposed) != 0 || Environment.IsDisposed)
        {
            _guard.Exit(asOwner);
            ThrowIfInactive();
        }
        LastThread = thread;
        return asOwner;
    }

    /// <summary>Ends the operation begun by <see cref="Enter"/>, which returned <paramref name="asOwner"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void Exit(bool asOwner)
    {
        if (_guarded) _guard.Exit(asOwner);
        // A read operation returns true when it counted in the transaction's own activity.
        else ExitRead(asOwner ? _activity! : Environment.ReadActivities.ForCurrentThread(), throwIfEnded: true);
    }

    /// <summary>
    /// Ends a read operation begun by <see cref="EnterRead"/>, which returned <paramref name="activity"/>: uncounts it,
    /// then (<paramref name="throwIfEnded"/>) throws
    /// when the transaction was ended while the operation ran, which only another thread can do (misuse: a
    /// transaction is for one thread at a time). Ending it gave back its reader slot, so the writer may have reused
    /// the pages the operation read: neither its result nor a <see cref="CorruptionException"/> it raised can be
    /// trusted, and the caller learns what happened instead. The barrier keeps the page reads before the check:
    /// a read that saw a reused page then sees the transaction ended, which came first.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void ExitRead(ReadActivity activity, bool throwIfEnded)
    {
        // A release store: the operation's page reads come before it, as a close that sees the count at zero needs.
        Volatile.Write(ref activity.Inside, activity.Inside - 1);
        Volatile.ReadBarrier();
        if (_disposed != 0) EndedDuringRead(throwIfEnded);
    }

    /// <summary>
    /// A read operation's transaction was ended while it ran. A close may have postponed releasing the memory for
    /// this operation (see <see cref="ReadActivities"/>): now that it is out, it retries the release. The full fence
    /// orders its count's store before the close's flag is read, against the close's flag store and scan.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void EndedDuringRead(bool throwIt)
    {
        Interlocked.MemoryBarrier();
        Environment.ReleaseMemoryIfClosedAndUnread();
        if (throwIt) ThrowEndedDuringRead();
    }

    [DoesNotReturn]
    internal void ThrowEndedDuringRead() => throw new ObjectDisposedException(GetType().Name,
        "The read transaction was disposed on another thread while this operation ran on it, so what the operation read cannot be trusted. " +
        "A transaction is for one thread at a time: dispose it once its operations have returned.");

    /// <summary>
    /// An exception filter for the operations of a write transaction: records the first failure, after which the
    /// transaction refuses every operation but Dispose (a change that threw may have left a tree half changed).
    /// Never catches: returns false.
    /// </summary>
    internal bool Fail(string operation, Exception error)
    {
        if (_guarded) Interlocked.CompareExchange(ref _failure, new OperationFailure(operation, error), null);
        return false;
    }

    /// <summary>The thread that last entered the transaction (write transactions only).</summary>
    internal int LastThread { get; private set; }

    private void RefuseEntry(string operation, int inside, int thread)
    {
        if (inside == OperationGuard.Closed) ThrowEnded();
        var refusal = new InvalidOperationException(
            $"{operation} was called on thread {thread} while thread {inside} was running an operation on the same write transaction. " +
            "A transaction, its trees and its cursors are for one thread at a time; this one can no longer be committed: dispose it.");
        Fail(operation, refusal);
        throw refusal;
    }

    private void ThrowFailed()
    {
        ThrowIfInactive();
        var failure = _failure!;
        throw new InvalidOperationException(
            $"An earlier operation on this write transaction failed ({failure}); the transaction can no longer be used or committed. Dispose it and start again.",
            failure.Error);
    }

    /// <summary>Ends the transaction. A write transaction not committed is aborted: nothing it did is kept.</summary>
    public void Dispose()
    {
        if (!TryBeginEnd()) return;
        OnEnd();
        GC.SuppressFinalize(this);
    }

    /// <summary>
    /// Marks the transaction ended, once: false when it had already ended (disposed, committed or aborted), and
    /// the caller then does nothing. On true the caller ends it (<see cref="OnEnd"/>, or the write transaction's
    /// asynchronous end).
    /// </summary>
    private protected bool TryBeginEnd()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return false;
        // An operation running on another thread (misuse) finishes before the pages are discarded under it.
        if (_guarded) _guard.Close(System.Environment.CurrentManagedThreadId);
        return true;
    }

    private protected abstract void OnEnd();
}
