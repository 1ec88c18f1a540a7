using System.Runtime.CompilerServices;
using StorageEngine.BTrees;
using StorageEngine.Transactions;

namespace StorageEngine;

/// <summary>
/// Walks a tree in key order, forwards or backwards, within an optional <see cref="KeyRange"/>. Each move
/// returns whether the cursor stands on an entry; <see cref="Key"/> and <see cref="Value"/> are then valid
/// until the next move. In a write transaction the cursor follows changes made to the tree meanwhile: once its
/// entry is deleted, <see cref="Key"/> and <see cref="Value"/> throw <see cref="InvalidOperationException"/> until the
/// cursor moves, and <see cref="Next"/> and <see cref="Previous"/> step to the entries after and before where it stood.
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
    // own state: two threads moving one cursor at once could step it off its page.
    private OperationGuard _guard = new();
    // Read transactions: the activity the operation inside counted itself in (set and read under the guard).
    private ReadActivity? _activity;

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
            bool asOwner = EnterPositioned(Operations.CursorKey);
            try
            {
                return _cursor.Key;
            }
            // Disposed on another thread meanwhile: what was read may be a reused page, not corruption.
            catch (Exception) when (!_writable && !_transaction.IsActive)
            {
                _transaction.ThrowEndedDuringRead();
                throw;
            }
            // A cursor whose entry was deleted says so: the tree is unchanged, the transaction fine.
            catch (Exception e) when (e is not InvalidOperationException && Fail(Operations.CursorKey, e))
            {
                throw;
            }
            finally
            {
                Exit(asOwner);
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
            bool asOwner = EnterPositioned(Operations.CursorValue);
            try
            {
                return _cursor.Value;
            }
            // Disposed on another thread meanwhile: what was read may be a reused page, not corruption.
            catch (Exception) when (!_writable && !_transaction.IsActive)
            {
                _transaction.ThrowEndedDuringRead();
                throw;
            }
            // A cursor whose entry was deleted says so: the tree is unchanged, the transaction fine.
            catch (Exception e) when (e is not InvalidOperationException && Fail(Operations.CursorValue, e))
            {
                throw;
            }
            finally
            {
                Exit(asOwner);
            }
        }
    }

    /// <summary>For <c>foreach</c>: every entry of the range from the first, allocation-free (see <see cref="CursorEnumerator"/>).</summary>
    public CursorEnumerator GetEnumerator() => new(this, ownsCursor: false);

    /// <summary>Moves to the first entry of the range.</summary>
    public bool First()
    {
        bool asOwner = Enter(Operations.CursorFirst);
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
            Exit(asOwner, moved: true);
        }
    }

    /// <summary>Moves to the last entry of the range.</summary>
    public bool Last()
    {
        bool asOwner = Enter(Operations.CursorLast);
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
            Exit(asOwner, moved: true);
        }
    }

    /// <summary>Moves to the first entry whose key is >= <paramref name="key"/> (and in the range).</summary>
    /// <exception cref="ArgumentException">The key is one that <see cref="Tree.Put(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/> would refuse.</exception>
    public bool Seek(ReadOnlySpan<byte> key)
    {
        bool asOwner = EnterWithKey(Operations.CursorSeek, key);
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
            Exit(asOwner, moved: true);
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
        bool asOwner = EnterWithKey(Operations.CursorSeekAtOrBefore, key);
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
            Exit(asOwner, moved: true);
        }
    }

    /// <summary>Moves to the next entry in key order.</summary>
    public bool Next()
    {
        bool asOwner = Enter(Operations.CursorNext);
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
            Exit(asOwner, moved: true);
        }
    }

    /// <summary>Moves to the previous entry in key order.</summary>
    public bool Previous()
    {
        bool asOwner = Enter(Operations.CursorPrevious);
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
            Exit(asOwner, moved: true);
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
    private bool Enter(string operation)
    {
        if (_disposed) ThrowDisposed();
        bool asOwner;
        if (_writable) asOwner = _transaction.Enter(operation);
        else
        {
            int thread = System.Environment.CurrentManagedThreadId;
            var activity = _transaction.EnterRead(thread);
            asOwner = _guard.TryEnter(thread, out int inside);
            if (inside != 0)
            {
                _transaction.ExitRead(activity, throwIfEnded: false);
                ThrowMoving(operation, inside, thread);
            }
            _activity = activity;
        }
        // Only a write transaction deletes trees.
        if (_writable && _tree.IsDropped)
        {
            Exit(asOwner);
            ThrowDropped();
        }
        return asOwner;
    }

    private bool EnterWithKey(string operation, ReadOnlySpan<byte> key)
    {
        bool asOwner = Enter(operation);
        if (_tree.InvalidKey(key) is { } invalid)
        {
            Exit(asOwner);
            throw invalid;
        }
        return asOwner;
    }

    private bool EnterPositioned(string operation)
    {
        bool asOwner = Enter(operation);
        if (!_positioned || !_cursor.IsValid)
        {
            Exit(asOwner);
            ThrowNotOnEntry();
        }
        return asOwner;
    }

    /// <summary>
    /// Leaves the transaction (write transactions), or the cursor's own guard and the read operation (read
    /// transactions). After a move (<paramref name="moved"/>) a read transaction checks that it was not disposed
    /// during the move (see <see cref="Transaction.Exit"/>): a move's answer (is there an entry?) may come from
    /// reused pages. Reading the key or value needs no check: what it returns is a span, which the dispose
    /// invalidates whenever it comes.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Exit(bool asOwner, bool moved = false)
    {
        if (_writable) _transaction.Exit(asOwner);
        else
        {
            var activity = _activity!;
            _guard.Exit(asOwner);
            _transaction.ExitRead(activity, throwIfEnded: moved);
        }
    }

    private bool Fail(string operation, Exception error) => _transaction.Fail(operation, error);

    private void ThrowDropped() =>
        throw new InvalidOperationException($"The tree '{_tree.Name}' was deleted in this transaction; its cursors can no longer be used.");

    private static void ThrowMoving(string operation, int moving, int thread)
    {
        if (moving == OperationGuard.Closed) ThrowDisposed();
        throw new InvalidOperationException($"{operation} was called on thread {thread} while thread {moving} was moving the same cursor; a cursor is for one thread at a time.");
    }

    private static void ThrowDisposed() => throw new ObjectDisposedException(nameof(Cursor));

    private static void ThrowNotOnEntry() =>
        throw new InvalidOperationException("The cursor is not on an entry; a move returned false or none was made.");

    /// <summary>Releases the cursor.</summary>
    public void Dispose() => _disposed = true;
}
