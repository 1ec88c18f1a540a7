namespace StorageEngine.Peers;

/// <summary>
/// The smallest surface every engine under comparison offers. Keys compare bytewise (unsigned), so integer
/// keys are written big-endian. Implementations are safe for concurrent use from several threads: reads run
/// in parallel, writes are serialised however the engine does it.
/// </summary>
public interface IKeyValueStore : IDisposable
{
    /// <summary>The engine's short name (as on the command line).</summary>
    string EngineName { get; }

    /// <summary>What a returned <see cref="WriteBatch"/> promises.</summary>
    DurabilityTier Tier { get; }

    /// <summary>Writes all puts (insert or overwrite) in one atomic transaction.</summary>
    void WriteBatch(ReadOnlySpan<KeyValue> puts);

    /// <summary>Deletes the keys in one atomic transaction; absent keys are ignored.</summary>
    void DeleteBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys);

    /// <summary>
    /// Point lookup. Returns the value's length, or -1 when the key is absent, and copies as much of the value
    /// as fits into <paramref name="destination"/> (an engine must hand the value out of its transaction).
    /// </summary>
    int Get(ReadOnlySpan<byte> key, Span<byte> destination);

    /// <summary>
    /// Looks up all keys from one snapshot (one read transaction where the engine has them), copying each
    /// value found into <paramref name="scratch"/>. Returns how many were found.
    /// </summary>
    int GetBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys, Span<byte> scratch);

    /// <summary>
    /// Visits up to <paramref name="count"/> entries in key order from the first key &gt;= <paramref name="start"/>
    /// (forward) or the last key &lt;= <paramref name="start"/> (backward); an empty start means the first
    /// (forward) or last (backward) key. Reads each key and value. Returns the number of entries visited.
    /// </summary>
    int Scan(ReadOnlySpan<byte> start, int count, bool backward = false);
}
