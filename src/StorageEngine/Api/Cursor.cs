using StorageEngine.BTrees;

namespace StorageEngine;

/// <summary>
/// Walks a tree in key order, forwards or backwards, within an optional <see cref="KeyRange"/>. Each move
/// returns whether the cursor stands on an entry; <see cref="Key"/> and <see cref="Value"/> are then valid
/// until the next move. In a write transaction the cursor follows changes made to the tree meanwhile.
/// </summary>
public sealed class Cursor : IDisposable
{
    private readonly Transaction _transaction;
    private readonly TreeCursor _cursor;
    private readonly KeyRange _range;
    private bool _disposed;
    private bool _positioned;

    internal Cursor(Transaction transaction, TreeCursor cursor, KeyRange range)
    {
        _transaction = transaction;
        _cursor = cursor;
        _range = range;
    }

    /// <summary>True when the cursor stands on an entry.</summary>
    public bool IsValid => !_disposed && _transaction.IsActive && _positioned && _cursor.IsValid;

    /// <summary>The key under the cursor.</summary>
    public ReadOnlySpan<byte> Key
    {
        get
        {
            ThrowIfUnpositioned();
            return _cursor.Key;
        }
    }

    /// <summary>The integer key under the cursor (trees with <see cref="TreeOptions.Int64Keys"/>).</summary>
    public long Int64Key => StorageEngine.Int64Key.Read(Key);

    /// <summary>The value under the cursor.</summary>
    public ReadOnlySpan<byte> Value
    {
        get
        {
            ThrowIfUnpositioned();
            return _cursor.Value;
        }
    }

    /// <summary>For <c>foreach</c>: every entry of the range from the first, allocation-free (see <see cref="CursorEnumerator"/>).</summary>
    public CursorEnumerator GetEnumerator() => new(this, ownsCursor: false);

    /// <summary>Moves to the first entry of the range.</summary>
    public bool First()
    {
        ThrowIfUnusable();
        bool found = _range.Start is null ? _cursor.First() : SeekRaw(_range.Start);
        return Bound(found);
    }

    /// <summary>Moves to the last entry of the range.</summary>
    public bool Last()
    {
        ThrowIfUnusable();
        bool found;
        if (_range.End is null) found = _cursor.Last();
        else
        {
            // The last key below End: seek End, then step back once.
            SeekRaw(_range.End);
            found = _cursor.IsValid ? _cursor.Previous() : _cursor.Last();
        }
        return Bound(found);
    }

    /// <summary>Moves to the first entry whose key is >= <paramref name="key"/> (and in the range).</summary>
    public bool Seek(ReadOnlySpan<byte> key)
    {
        ThrowIfUnusable();
        if (_range.Start is not null && key.SequenceCompareTo(_range.Start) < 0) return First();
        return Bound(SeekRaw(key));
    }

    /// <summary>Moves to the first entry whose integer key is >= <paramref name="key"/>.</summary>
    public bool Seek(long key)
    {
        Span<byte> k = stackalloc byte[StorageEngine.Int64Key.Size];
        StorageEngine.Int64Key.Write(k, key);
        return Seek(k);
    }

    /// <summary>Moves to the last entry whose key is &lt;= <paramref name="key"/> (and in the range).</summary>
    public bool SeekAtOrBefore(ReadOnlySpan<byte> key)
    {
        ThrowIfUnusable();
        if (_range.End is not null && key.SequenceCompareTo(_range.End) >= 0) return Last();
        bool exact = _cursor.Seek(key);
        bool found = exact || (_cursor.IsValid ? _cursor.Previous() : _cursor.Last());
        return Bound(found);
    }

    /// <summary>Moves to the next entry in key order.</summary>
    public bool Next()
    {
        ThrowIfUnusable();
        return Bound(_cursor.Next());
    }

    /// <summary>Moves to the previous entry in key order.</summary>
    public bool Previous()
    {
        ThrowIfUnusable();
        return Bound(_cursor.Previous());
    }

    private bool SeekRaw(ReadOnlySpan<byte> key)
    {
        _cursor.Seek(key);
        return _cursor.IsValid;
    }

    // An unbounded range (the common case) needs no key: skip making one on every move.
    private bool Bound(bool found) => _positioned = found && (_range.IsAll || _range.Contains(_cursor.Key));

    private void ThrowIfUnusable()
    {
        if (_disposed) ThrowDisposed();
        _transaction.ThrowIfInactive();
    }

    private static void ThrowDisposed() => throw new ObjectDisposedException(nameof(Cursor));

    private void ThrowIfUnpositioned()
    {
        ThrowIfUnusable();
        if (!_positioned || !_cursor.IsValid) ThrowNotOnEntry();
    }

    private static void ThrowNotOnEntry() =>
        throw new InvalidOperationException("The cursor is not on an entry; a move returned false or none was made.");

    /// <summary>Releases the cursor.</summary>
    public void Dispose() => _disposed = true;
}
