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
    private readonly Tree _tree;
    private readonly TreeCursor _cursor;
    private readonly KeyRange _range;
    private readonly bool _writable;
    private bool _disposed;
    private bool _positioned;
    // In a read transaction, which does not guard its operations (see Transaction.Enter), the cursor guards its
    // own state: the managed thread id of the thread moving it, 0 when none.
    private int _mover;

    internal Cursor(Transaction transaction, Tree tree, TreeCursor cursor, KeyRange range)
    {
        _transaction = transaction;
        _tree = tree;
        _cursor = cursor;
        _range = range;
        _writable = transaction.IsWritable;
    }

    /// <summary>True when the cursor stands on an entry.</summary>
    public bool IsValid => !_disposed && _transaction.IsActive && !_tree.IsDropped && _positioned && _cursor.IsValid;

    /// <summary>The key under the cursor.</summary>
    public ReadOnlySpan<byte> Key
    {
        get
        {
            EnterPositioned(Operations.CursorKey);
            try
            {
                return _cursor.Key;
            }
            catch (Exception e) when (Fail(Operations.CursorKey, e))
            {
                throw;
            }
            finally
            {
                Exit();
            }
        }
    }

    /// <summary>The integer key under the cursor (trees with <see cref="TreeOptions.Int64Keys"/>).</summary>
    public long Int64Key => StorageEngine.Int64Key.Read(Key);

    /// <summary>The value under the cursor.</summary>
    public ReadOnlySpan<byte> Value
    {
        get
        {
            EnterPositioned(Operations.CursorValue);
            try
            {
                return _cursor.Value;
            }
            catch (Exception e) when (Fail(Operations.CursorValue, e))
            {
                throw;
            }
            finally
            {
                Exit();
            }
        }
    }

    /// <summary>Moves to the first entry of the range.</summary>
    public bool First()
    {
        Enter(Operations.CursorFirst);
        try
        {
            return FirstCore();
        }
        catch (Exception e) when (Fail(Operations.CursorFirst, e))
        {
            throw;
        }
        finally
        {
            Exit();
        }
    }

    /// <summary>Moves to the last entry of the range.</summary>
    public bool Last()
    {
        Enter(Operations.CursorLast);
        try
        {
            return LastCore();
        }
        catch (Exception e) when (Fail(Operations.CursorLast, e))
        {
            throw;
        }
        finally
        {
            Exit();
        }
    }

    /// <summary>Moves to the first entry whose key is >= <paramref name="key"/> (and in the range).</summary>
    /// <exception cref="ArgumentException">The key is one that <see cref="Tree.Put(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/> would refuse.</exception>
    public bool Seek(ReadOnlySpan<byte> key)
    {
        EnterWithKey(Operations.CursorSeek, key);
        try
        {
            if (_range.Start is not null && key.SequenceCompareTo(_range.Start) < 0) return FirstCore();
            return Bound(SeekRaw(key));
        }
        catch (Exception e) when (Fail(Operations.CursorSeek, e))
        {
            throw;
        }
        finally
        {
            Exit();
        }
    }

    /// <summary>Moves to the first entry whose integer key is >= <paramref name="key"/>.</summary>
    public bool Seek(long key)
    {
        Span<byte> k = stackalloc byte[StorageEngine.Int64Key.Size];
        StorageEngine.Int64Key.Write(k, key);
        return Seek(k);
    }

    /// <summary>Moves to the last entry whose key is &lt;= <paramref name="key"/> (and in the range).</summary>
    /// <exception cref="ArgumentException">The key is one that <see cref="Tree.Put(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/> would refuse.</exception>
    public bool SeekAtOrBefore(ReadOnlySpan<byte> key)
    {
        EnterWithKey(Operations.CursorSeekAtOrBefore, key);
        try
        {
            if (_range.End is not null && key.SequenceCompareTo(_range.End) >= 0) return LastCore();
            bool exact = _cursor.Seek(key);
            bool found = exact || (_cursor.IsValid ? _cursor.Previous() : _cursor.Last());
            return Bound(found);
        }
        catch (Exception e) when (Fail(Operations.CursorSeekAtOrBefore, e))
        {
            throw;
        }
        finally
        {
            Exit();
        }
    }

    /// <summary>Moves to the next entry in key order.</summary>
    public bool Next()
    {
        Enter(Operations.CursorNext);
        try
        {
            return Bound(_cursor.Next());
        }
        catch (Exception e) when (Fail(Operations.CursorNext, e))
        {
            throw;
        }
        finally
        {
            Exit();
        }
    }

    /// <summary>Moves to the previous entry in key order.</summary>
    public bool Previous()
    {
        Enter(Operations.CursorPrevious);
        try
        {
            return Bound(_cursor.Previous());
        }
        catch (Exception e) when (Fail(Operations.CursorPrevious, e))
        {
            throw;
        }
        finally
        {
            Exit();
        }
    }

    private bool FirstCore()
    {
        bool found = _range.Start is null ? _cursor.First() : SeekRaw(_range.Start);
        return Bound(found);
    }

    private bool LastCore()
    {
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

    private bool SeekRaw(ReadOnlySpan<byte> key)
    {
        _cursor.Seek(key);
        return _cursor.IsValid;
    }

    // An unbounded range (the common case) needs no key: skip making one on every move.
    private bool Bound(bool found) => _positioned = found && (_range.IsAll || _range.Contains(_cursor.Key));

    /// <summary>
    /// Begins an operation: enters the transaction (a write transaction refuses a second thread), or in a read
    /// transaction claims the cursor itself; then checks that the cursor and its tree can be used. A cursor on a
    /// tree deleted in its transaction is refused here, before it reads pages the deletion freed.
    /// </summary>
    private void Enter(string operation)
    {
        if (_disposed) ThrowDisposed();
        var transaction = _transaction;
        transaction.Enter(operation);
        if (!_writable)
        {
            int thread = System.Environment.CurrentManagedThreadId;
            int moving = Interlocked.CompareExchange(ref _mover, thread, 0);
            if (moving != 0) ThrowMoving(operation, moving, thread);
        }
        if (_tree.IsDropped)
        {
            Exit();
            ThrowDropped();
        }
    }

    private void EnterWithKey(string operation, ReadOnlySpan<byte> key)
    {
        Enter(operation);
        if (_tree.InvalidKey(key) is { } invalid)
        {
            Exit();
            throw invalid;
        }
    }

    private void EnterPositioned(string operation)
    {
        Enter(operation);
        if (!_positioned || !_cursor.IsValid)
        {
            Exit();
            ThrowNotOnEntry();
        }
    }

    private void Exit()
    {
        if (_writable) _transaction.Exit();
        else Volatile.Write(ref _mover, 0);
    }

    private bool Fail(string operation, Exception error) => _transaction.Fail(operation, error);

    private void ThrowDropped() =>
        throw new InvalidOperationException($"The tree '{_tree.Name}' was deleted in this transaction; its cursors can no longer be used.");

    private static void ThrowMoving(string operation, int moving, int thread) =>
        throw new InvalidOperationException($"{operation} was called on thread {thread} while thread {moving} was moving the same cursor; a cursor is for one thread at a time.");

    private static void ThrowDisposed() => throw new ObjectDisposedException(nameof(Cursor));

    private static void ThrowNotOnEntry() =>
        throw new InvalidOperationException("The cursor is not on an entry; a move returned false or none was made.");

    /// <summary>Releases the cursor.</summary>
    public void Dispose() => _disposed = true;
}
