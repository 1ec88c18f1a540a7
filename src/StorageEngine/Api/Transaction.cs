using System.Diagnostics.CodeAnalysis;
using System.Runtime.InteropServices;
using System.Text;
using StorageEngine.BTrees;
using StorageEngine.Transactions;

namespace StorageEngine;

/// <summary>
/// What read and write transactions share: a snapshot of the environment and access to its named trees.
/// Not thread-safe: use a transaction from one thread at a time (it may move between threads, as async code
/// does).
/// </summary>
public abstract class Transaction : IDisposable
{
    private readonly Dictionary<string, Tree> _trees = new(StringComparer.Ordinal);
    private BTree? _rootTree;
    // An int for Interlocked: ending a transaction from two threads at once must run its end only once.
    private int _disposed;

    private protected Transaction(StorageEnvironment environment, Snapshot snapshot, IPageSource pages)
    {
        Environment = environment;
        Snapshot = snapshot;
        Pages = pages;
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
            if (_rootTree is null && Snapshot.State.RootTree.RootPage != 0) _rootTree = new BTree(Pages, Snapshot.State.RootTree);
            return _rootTree;
        }
        set => _rootTree = value;
    }

    internal IEnumerable<Tree> OpenedTrees => _trees.Values;

    /// <summary>Opens an existing tree.</summary>
    /// <exception cref="KeyNotFoundException">No tree has that name.</exception>
    public Tree OpenTree(string name) =>
        TryOpenTree(name, out var tree) ? tree : throw new KeyNotFoundException($"The environment has no tree named '{name}'.");

    /// <summary>Opens an existing tree; false when none has that name.</summary>
    public bool TryOpenTree(string name, [NotNullWhen(true)] out Tree? tree)
    {
        ThrowIfInactive();
        if (_trees.TryGetValue(name, out tree)) return !tree.IsDropped;
        Span<byte> key = stackalloc byte[Tree.MaxNameBytes];
        int length = Tree.EncodeName(name, key);
        var root = RootTree;
        if (root is null || !root.TryGet(key[..length], out var stored))
        {
            tree = null;
            return false;
        }
        if (stored.Length != TreeHeader.Size)
            throw Pages.Corruption(Snapshot.State.RootTree.RootPage, $"the entry of tree '{name}' is {stored.Length} bytes, not a tree header.");
        tree = new Tree(this, name, new BTree(Pages, MemoryMarshal.Read<TreeHeader>(stored)));
        _trees.Add(name, tree);
        return true;
    }

    /// <summary>Names of all trees, in bytewise order of their UTF-8 encoding.</summary>
    public IReadOnlyList<string> GetTreeNames()
    {
        ThrowIfInactive();
        var names = new List<string>();
        var root = RootTree;
        if (root is not null)
        {
            var cursor = new TreeCursor(root, IsWritable);
            for (bool more = cursor.First(); more; more = cursor.Next()) names.Add(Encoding.UTF8.GetString(cursor.Key));
        }
        // Trees created or deleted in this transaction reach the tree of names only at commit.
        bool changed = false;
        foreach (var tree in _trees.Values)
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

    internal void Remember(Tree tree) => _trees[tree.Name] = tree;

    internal void Forget(string name) => _trees.Remove(name);

    /// <summary>Throws unless the transaction can still be used.</summary>
    internal void ThrowIfInactive()
    {
        if (Volatile.Read(ref _disposed) != 0) throw new ObjectDisposedException(GetType().Name, "The transaction has ended (committed, aborted or disposed).");
        Environment.ThrowIfDisposed();
    }

    internal bool IsActive => Volatile.Read(ref _disposed) == 0;

    /// <summary>Ends the transaction. A write transaction not committed is aborted: nothing it did is kept.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        OnEnd();
        GC.SuppressFinalize(this);
    }

    private protected abstract void OnEnd();
}
