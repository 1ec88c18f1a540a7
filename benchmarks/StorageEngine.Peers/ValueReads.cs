namespace StorageEngine.Peers;

/// <summary>
/// The read work every adapter does the same way, so that no engine is timed doing less: a point read hands the
/// value out of the engine's transaction, and a scan reads each entry's key and value (the value's first byte,
/// not only its length: our adapter read only the length before 1bd2c55 and SQLite's before 0ee9ce2, both
/// 2026-11-24, and each adapter had its own copy of this line).
/// </summary>
internal static class ValueReads
{
    /// <summary>
    /// Copies as much of <paramref name="value"/> as fits into <paramref name="destination"/> and returns the
    /// value's full length, as <see cref="IKeyValueStore.Get"/> promises.
    /// </summary>
    internal static int CopyOut(ReadOnlySpan<byte> value, Span<byte> destination)
    {
        value[..Math.Min(value.Length, destination.Length)].CopyTo(destination);
        return value.Length;
    }

    /// <summary>What a scan's visit of one entry reads; the caller sums it and keeps the sum alive.</summary>
    internal static long Visit(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value) =>
        key.Length + value.Length + (value.IsEmpty ? 0 : value[0]);
}
