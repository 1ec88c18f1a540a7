namespace StorageEngine.Peers.Tests;

/// <summary>
/// What a store should hold and answer, kept in a <see cref="SortedDictionary{TKey,TValue}"/> ordered like the
/// stores' keys (bytewise, unsigned).
/// </summary>
public sealed class Oracle
{
    private readonly SortedDictionary<byte[], byte[]> _entries = new(BytewiseComparer.Instance);

    /// <summary>How many keys are present.</summary>
    public int Count => _entries.Count;

    /// <summary>The present keys in order.</summary>
    public IReadOnlyCollection<byte[]> Keys => _entries.Keys;

    /// <summary>Inserts or overwrites.</summary>
    public void Put(byte[] key, byte[] value) => _entries[key] = value;

    /// <summary>Removes the key if present.</summary>
    public void Delete(byte[] key) => _entries.Remove(key);

    /// <summary>The value, or null when the key is absent.</summary>
    public byte[]? Get(byte[] key) => _entries.GetValueOrDefault(key);

    /// <summary>
    /// How many entries <see cref="IKeyValueStore.Scan"/> should visit: up to <paramref name="count"/> from the first
    /// key &gt;= <paramref name="start"/> forward, or the last key &lt;= it backward; an empty start means every key.
    /// </summary>
    public int ScanCount(byte[] start, int count, bool backward)
    {
        int remaining = start.Length == 0
            ? _entries.Count
            : _entries.Keys.Count(k => backward
                ? BytewiseComparer.Instance.Compare(k, start) <= 0
                : BytewiseComparer.Instance.Compare(k, start) >= 0);
        return Math.Min(count, remaining);
    }
}
