namespace StorageEngine.Peers.Tests;

/// <summary>Shorthands that keep the tests about behaviour rather than spans.</summary>
public static class StoreExtensions
{
    /// <summary>Writes the pairs in one batch.</summary>
    public static void Put(this IKeyValueStore store, params (byte[] Key, byte[] Value)[] pairs) =>
        store.WriteBatch(pairs.Select(p => new KeyValue(p.Key, p.Value)).ToArray());

    /// <summary>Deletes the keys in one batch.</summary>
    public static void Delete(this IKeyValueStore store, params byte[][] keys) =>
        store.DeleteBatch(keys.Select(k => (ReadOnlyMemory<byte>)k).ToArray());

    /// <summary>The value, or null when absent, read into a buffer large enough for it.</summary>
    public static byte[]? ValueOf(this IKeyValueStore store, byte[] key)
    {
        var buffer = new byte[64 * 1024];
        int length = store.Get(key, buffer);
        return length < 0 ? null : buffer[..length];
    }

    /// <summary>Looks the keys up in one batch; returns how many were found.</summary>
    public static int CountFound(this IKeyValueStore store, params byte[][] keys) =>
        store.GetBatch(keys.Select(k => (ReadOnlyMemory<byte>)k).ToArray(), new byte[64 * 1024]);

    /// <summary>
    /// <see cref="IKeyValueStore.Scan"/>, or null where the engine has no ordered scans (it throws
    /// <see cref="NotSupportedException"/>), so that the callers skip their scan checks for it.
    /// </summary>
    public static int? TryScan(this IKeyValueStore store, byte[] start, int count, bool backward = false)
    {
        try
        {
            return store.Scan(start, count, backward);
        }
        catch (NotSupportedException)
        {
            return null;
        }
    }
}
