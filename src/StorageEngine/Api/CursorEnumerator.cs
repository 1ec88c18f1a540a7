namespace StorageEngine;

/// <summary>
/// <c>foreach</c> over a <see cref="Cursor"/> (or over <see cref="Tree.Entries"/>): every entry of the cursor's
/// range in key order, from the first, as <see cref="CursorEntry"/> spans. A ref struct that allocates nothing:
/// each step is one <see cref="Cursor.Next"/>. The cursor is left on the last entry visited; an enumerator made
/// by <see cref="TreeEntries"/> owns its cursor and disposes it when the loop ends.
/// </summary>
public ref struct CursorEnumerator
{
    private readonly Cursor _cursor;
    private readonly bool _ownsCursor;
    private bool _started;
    private bool _positioned;

    internal CursorEnumerator(Cursor cursor, bool ownsCursor)
    {
        _cursor = cursor;
        _ownsCursor = ownsCursor;
    }

    /// <summary>The entry the enumeration stands on.</summary>
    /// <exception cref="InvalidOperationException">Before the first <see cref="MoveNext"/> or after the last entry.</exception>
    public readonly CursorEntry Current => _positioned
        ? new CursorEntry(_cursor.Key, _cursor.Value)
        : throw new InvalidOperationException("The enumeration does not stand on an entry: call MoveNext first, and only while it returns true.");

    /// <summary>Moves to the first entry, then to each next one; false past the last.</summary>
    public bool MoveNext()
    {
        if (_started && !_positioned) return false;
        _positioned = _started ? _cursor.Next() : _cursor.First();
        _started = true;
        return _positioned;
    }

    /// <summary>Disposes the cursor when the enumerator made it (<see cref="Tree.Entries"/>); otherwise leaves it open.</summary>
    public void Dispose()
    {
        if (_ownsCursor) _cursor.Dispose();
    }
}
