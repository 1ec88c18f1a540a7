using StorageEngine.BTrees;

namespace StorageEngine;

/// <summary>
/// A named, ordered map of byte-string keys to byte-string values, seen through one transaction. Keys are
/// 1 to <see cref="StorageEnvironment.MaxKeySize"/> bytes, values 0 to <see cref="StorageEnvironment.MaxValueSize"/>;
/// large values live on overflow pages. Returned values point into the engine's pages (no copy): they are
/// valid until the transaction ends, and in a write transaction until its next change. Read later, while the
/// environment is open, they hold stale or reused bytes but never fault (see the API guide).
/// </summary>
public sealed partial class Tree
{
    internal const int MaxNameBytes = 255;
    private readonly Transaction _transaction;
    private bool _created;

    internal Tree(Transaction transaction, string name, BTree tree)
    {
        _transaction = transaction;
        Name = name;
        BTree = tree;
        Options = tree.IsFixedInt64 ? TreeOptions.Int64Keys : TreeOptions.None;
    }

    /// <summary>The tree's name.</summary>
    public string Name { get; }

    /// <summary>The options it was created with.</summary>
    public TreeOptions Options { get; }

    /// <summary>Number of entries, as this transaction sees them.</summary>
    public long Count
    {
        get
        {
            var transaction = Enter(Operations.Count, out bool asOwner);
            long count = BTree.Header.EntryCount;
            transaction.Exit(asOwner);
            return count;
        }
    }

    /// <summary>
    /// The tree as this transaction sees it. In a write transaction the object is reused by later writers once this
    /// one ends (see PageWriter.RentTree): only code inside one of the transaction's guarded operations may use it.
    /// </summary>
    internal BTree BTree { get; }

    /// <summary>Entries, depth and pages of the tree as this transaction sees it.</summary>
    public TreeStatistics GetStatistics()
    {
        var transaction = Enter(Operations.GetStatistics, out bool asOwner);
        var h = BTree.Header;
        transaction.Exit(asOwner);
        return new TreeStatistics(h.EntryCount, h.Depth, h.BranchPages, h.LeafPages, h.OverflowPages);
    }

    internal bool IsDropped { get; private set; }

    /// <summary>
    /// True when the transaction loaded this tree as the hot tree: its header came from the environment state,
    /// and its entry in the tree of names is marked <see cref="TreeFlags.HeaderInState"/>.
    /// </summary>
    internal bool HeaderInState { get; init; }

    internal bool IsChanged => BTree.IsDirty || _created || IsDropped;

    internal void MarkCreated() => _created = true;

    /// <summary>Frees the tree's pages; the caller has entered the transaction and checked the tree is not dropped.</summary>
    internal void Drop()
    {
        BTree.FreeAllPages();
        IsDropped = true;
    }

    /// <summary>Looks a key up; the value is valid as described on <see cref="Tree"/>.</summary>
    /// <exception cref="ArgumentException">The key is empty, longer than <see cref="StorageEnvironment.MaxKeySize"/>, or not 8 bytes in a tree of integer keys.</exception>
    public bool TryGet(scoped ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        var transaction = Enter(Operations.TryGet, out bool asOwner);
        if (InvalidKey(key) is { } invalid)
        {
            transaction.Exit(asOwner);
            throw invalid;
        }
        try
        {
            return BTree.TryGet(key, out value);
        }
        catch (Exception e) when (transaction.Fail(Operations.TryGet, e))
        {
            throw;
        }
        finally
        {
            transaction.Exit(asOwner);
        }
    }

    /// <summary>A copy of the value of <paramref name="key"/>, or null when absent.</summary>
    /// <remarks>The copy is made inside the operation, so that a read transaction ended meanwhile is noticed after it.</remarks>
    public byte[]? Get(ReadOnlySpan<byte> key)
    {
        var transaction = Enter(Operations.TryGet, out bool asOwner);
        if (InvalidKey(key) is { } invalid)
        {
            transaction.Exit(asOwner);
            throw invalid;
        }
        try
        {
            return BTree.TryGet(key, out var value) ? value.ToArray() : null;
        }
        catch (Exception e) when (transaction.Fail(Operations.TryGet, e))
        {
            throw;
        }
        finally
        {
            transaction.Exit(asOwner);
        }
    }

    /// <summary>True when the key is present.</summary>
    public bool ContainsKey(ReadOnlySpan<byte> key) => TryGet(key, out _);

    /// <summary>Inserts the key or replaces its value.</summary>
    /// <exception cref="InvalidOperationException">The transaction is a read transaction.</exception>
    /// <exception cref="ArgumentException">The key or value is out of bounds.</exception>
    public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        var transaction = EnterWritable(Operations.Put, out bool asOwner);
        if ((InvalidKey(key) ?? InvalidValue(value)) is { } invalid)
        {
            transaction.Exit(asOwner);
            throw invalid;
        }
        try
        {
            BTree.Put(key, value);
        }
        catch (Exception e) when (transaction.Fail(Operations.Put, e))
        {
            throw;
        }
        finally
        {
            transaction.Exit(asOwner);
        }
    }

    /// <summary>Removes the key; false when it was absent.</summary>
    public bool Delete(ReadOnlySpan<byte> key)
    {
        var transaction = EnterWritable(Operations.Delete, out bool asOwner);
        if (InvalidKey(key) is { } invalid)
        {
            transaction.Exit(asOwner);
            throw invalid;
        }
        try
        {
            return BTree.Delete(key);
        }
        catch (Exception e) when (transaction.Fail(Operations.Delete, e))
        {
            throw;
        }
        finally
        {
            transaction.Exit(asOwner);
        }
    }

    /// <summary>Looks an integer key up (any tree; the key is in its 8-byte form, see <see cref="Int64Key"/>).</summary>
    public bool TryGet(long key, out ReadOnlySpan<byte> value)
    {
        Span<byte> k = stackalloc byte[Int64Key.Size];
        Int64Key.Write(k, key);
        return TryGet(k, out value);
    }

    /// <summary>Inserts an integer key or replaces its value.</summary>
    public void Put(long key, ReadOnlySpan<byte> value)
    {
        Span<byte> k = stackalloc byte[Int64Key.Size];
        Int64Key.Write(k, key);
        Put(k, value);
    }

    /// <summary>Removes an integer key; false when it was absent.</summary>
    public bool Delete(long key)
    {
        Span<byte> k = stackalloc byte[Int64Key.Size];
        Int64Key.Write(k, key);
        return Delete(k);
    }

    /// <summary>The entries within <paramref name="range"/> (default all), for <c>foreach</c> (see <see cref="TreeEntries"/>).</summary>
    public TreeEntries Entries(KeyRange range = default) => new(this, range);

    /// <summary>A cursor over the tree, optionally limited to <paramref name="range"/>. Dispose it with or before the transaction.</summary>
    public Cursor CreateCursor(KeyRange range = default)
    {
        var transaction = Enter(Operations.CreateCursor, out bool asOwner);
        transaction.Exit(asOwner);
        return new Cursor(transaction, this, new TreeCursor(BTree, transaction.IsWritable), range);
    }

    /// <summary>
    /// Why <paramref name="key"/> cannot be a key of this tree, or null when it can: what every operation taking
    /// a key (<see cref="Put(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>, <see cref="TryGet(ReadOnlySpan{byte}, out ReadOnlySpan{byte})"/>,
    /// <see cref="Delete(ReadOnlySpan{byte})"/>, <see cref="Cursor.Seek(ReadOnlySpan{byte})"/>) throws, before it changes anything.
    /// </summary>
    internal ArgumentException? InvalidKey(ReadOnlySpan<byte> key)
    {
        if (key.IsEmpty) return new ArgumentException("A key must be at least one byte long.", nameof(key));
        int max = _transaction.Environment.MaxKeySize;
        if (key.Length > max) return new ArgumentException($"The key is {key.Length} bytes; the most is {max}.", nameof(key));
        if (BTree.IsFixedInt64 && key.Length != Int64Key.Size)
            return new ArgumentException($"The tree '{Name}' has 8-byte integer keys; this key is {key.Length} bytes.", nameof(key));
        return null;
    }

    /// <summary>Throws unless the transaction is open and the tree was not deleted in it.</summary>
    internal void ThrowIfTransactionInactive()
    {
        _transaction.ThrowIfInactive();
        if (IsDropped) ThrowDropped();
    }

    private ArgumentException? InvalidValue(ReadOnlySpan<byte> value)
    {
        if (value.Length > StorageEnvironment.MaxValueSize)
            return new ArgumentException($"The value is {value.Length} bytes; the most is {StorageEnvironment.MaxValueSize}.", nameof(value));
        // An overflow value is one contiguous run, which cannot span a free-space bitmap page.
        int pageSize = _transaction.Environment.PageSize;
        long largest = Paging.FreeSpaceMap.MaxRunPages(pageSize) * pageSize;
        if (value.Length > largest)
            return new ArgumentException($"The value is {value.Length} bytes; with {pageSize}-byte pages the most is {largest} (use larger pages for larger values).", nameof(value));
        return null;
    }

    /// <summary>
    /// Enters the transaction for <paramref name="operation"/> (see <see cref="Transaction.Enter"/>) and checks that
    /// the tree was not deleted; the caller exits the transaction.
    /// </summary>
    internal Transaction Enter(string operation, out bool asOwner)
    {
        var transaction = _transaction;
        asOwner = transaction.Enter(operation);
        if (IsDropped)
        {
            transaction.Exit(asOwner);
            ThrowDropped();
        }
        return transaction;
    }

    private Transaction EnterWritable(string operation, out bool asOwner)
    {
        var transaction = Enter(operation, out asOwner);
        if (!transaction.IsWritable)
        {
            transaction.Exit(asOwner);
            throw new InvalidOperationException($"Cannot change tree '{Name}' in a read transaction; use StorageEnvironment.BeginWrite.");
        }
        return transaction;
    }

    private void ThrowDropped() => throw new InvalidOperationException($"The tree '{Name}' was deleted in this transaction; open or create it again.");

    /// <summary>Throws the <see cref="ArgumentException"/> of an invalid tree name.</summary>
    internal static void CheckName(string name) => TreeName.Check(name);

    internal static int EncodeName(string name, Span<byte> destination) => TreeName.Encode(name, destination);
}
