namespace StorageEngine.Tests.Fuzz;

/// <summary>
/// Reads everything an environment holds the ways an application can: every tree, every entry with cursors
/// in both directions, every value byte, point lookups and seeks. Returns a digest of what it read.
/// </summary>
internal static class EnvironmentReader
{
    /// <summary>Entries read per tree and direction at most: a damaged tree may describe a huge one.</summary>
    private const int MaxEntries = 50_000;

    public static long ReadEverything(StorageEnvironment environment)
    {
        long digest = 0;
        using var tx = environment.BeginRead();
        foreach (string name in tx.GetTreeNames())
        {
            if (!tx.TryOpenTree(name, out var tree)) continue;
            digest += tree.Count;
            bool integers = tree.Options == TreeOptions.Int64Keys;
            var keys = new List<byte[]>();
            using (var cursor = tree.CreateCursor())
            {
                for (bool more = cursor.First(); more && keys.Count < MaxEntries; more = cursor.Next())
                {
                    keys.Add(cursor.Key.ToArray());
                    digest += Sum(cursor.Value);
                    if (integers) digest += cursor.Int64Key;
                }
                int backwards = 0;
                for (bool more = cursor.Last(); more && backwards < MaxEntries; more = cursor.Previous())
                {
                    backwards++;
                    digest += cursor.Key.Length + Sum(cursor.Value);
                }
                foreach (var key in keys)
                {
                    if (cursor.Seek(key)) digest += cursor.Key.Length;
                    if (cursor.SeekAtOrBefore(key)) digest += Sum(cursor.Value);
                }
            }
            foreach (var key in keys)
            {
                if (tree.TryGet(key, out var value)) digest += Sum(value);
            }
        }
        return digest;
    }

    private static long Sum(ReadOnlySpan<byte> bytes)
    {
        long sum = bytes.Length;
        foreach (byte b in bytes) sum += b;
        return sum;
    }
}
