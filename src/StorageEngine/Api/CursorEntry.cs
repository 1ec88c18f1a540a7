namespace StorageEngine;

/// <summary>
/// The entry a <see cref="CursorEnumerator"/> stands on: its key and value, pointing into the engine's pages (no
/// copy), valid until the enumeration moves on.
/// </summary>
public readonly ref struct CursorEntry
{
    internal CursorEntry(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        Key = key;
        Value = value;
    }

    /// <summary>The entry's key.</summary>
    public ReadOnlySpan<byte> Key { get; }

    /// <summary>The entry's value.</summary>
    public ReadOnlySpan<byte> Value { get; }

    /// <summary>The key of a tree with <see cref="TreeOptions.Int64Keys"/> as the integer it encodes.</summary>
    public long Int64Key => StorageEngine.Int64Key.Read(Key);

    /// <summary>Deconstructs into key and value: <c>foreach (var (key, value) in cursor)</c>.</summary>
    public void Deconstruct(out ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        key = Key;
        value = Value;
    }
}
