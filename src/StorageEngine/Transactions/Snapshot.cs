using StorageEngine.BTrees;
using StorageEngine.Platform;

namespace StorageEngine.Transactions;

/// <summary>
/// One committed version of the environment, immutable once published. Readers take the current one with a
/// single volatile read. What every reader of a snapshot would otherwise rebuild (its page source, the trees
/// they open) is kept here once, so that a read transaction costs no tree-of-names lookup after the first.
/// </summary>
internal sealed unsafe class Snapshot
{
    // Enough for the trees an application reads in one snapshot; beyond it, readers look names up each time.
    private const int MaxCachedTrees = 16;
    private SnapshotPageSource? _readPages;
    private CachedTree[] _readTrees = [];

    public Snapshot(EnvironmentState state, IMappedView view, long journalFileNumber)
    {
        State = state;
        Place(view, journalFileNumber);
    }

    /// <summary>
    /// The snapshot a commit will publish, made when it is sealed; <see cref="Place"/> completes it once its
    /// record is written, before anyone else sees it.
    /// </summary>
    public Snapshot(EnvironmentState state) => State = state;

    // A field, not a property: a commit in flight reads it by reference (see PendingCommit.State).
    public readonly EnvironmentState State;

    public long TransactionId => State.TransactionId;

    /// <summary>The mapping this snapshot reads its pages through.</summary>
    public IMappedView View { get; private set; } = null!;

    public byte* Base { get; private set; }

    /// <summary>The journal file that holds this transaction's record (recovery starts there once it is checkpointed).</summary>
    public long JournalFileNumber { get; private set; }

    /// <summary>Sets where the snapshot reads its pages and which journal file holds its record: once, before it is published.</summary>
    public void Place(IMappedView view, long journalFileNumber)
    {
        View = view;
        Base = view.Pointer;
        JournalFileNumber = journalFileNumber;
    }

    /// <summary>The page source read transactions of this snapshot share, once the first of them made it.</summary>
    public SnapshotPageSource? ReadPages => Volatile.Read(ref _readPages);

    /// <summary>Keeps <paramref name="pages"/> as <see cref="ReadPages"/> unless a racing reader set one first; returns the kept one.</summary>
    public SnapshotPageSource ShareReadPages(SnapshotPageSource pages) =>
        Interlocked.CompareExchange(ref _readPages, pages, null) ?? pages;

    /// <summary>A tree some read transaction of this snapshot opened already; read-only, shared by them all.</summary>
    public BTree? FindReadTree(string name)
    {
        foreach (var entry in Volatile.Read(ref _readTrees))
            if (string.Equals(entry.Name, name, StringComparison.Ordinal)) return entry.Tree;
        return null;
    }

    /// <summary>Keeps a tree opened read-only for the next read transactions of this snapshot.</summary>
    public void AddReadTree(string name, BTree tree)
    {
        while (true)
        {
            var current = Volatile.Read(ref _readTrees);
            if (current.Length >= MaxCachedTrees) return;
            foreach (var entry in current) if (string.Equals(entry.Name, name, StringComparison.Ordinal)) return;
            var larger = new CachedTree[current.Length + 1];
            current.CopyTo(larger, 0);
            larger[^1] = new CachedTree(name, tree);
            if (ReferenceEquals(Interlocked.CompareExchange(ref _readTrees, larger, current), current)) return;
        }
    }

    private readonly record struct CachedTree(string Name, BTree Tree);
}
