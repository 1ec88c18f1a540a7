namespace StorageEngine.Tests.Unit;

/// <summary>
/// One committed tree of a few thousand random keys (many sharing prefixes, some prefixes of others) and its
/// sorted model, shared read-only by the cursor tests.
/// </summary>
public sealed class CursorTreeFixture : IDisposable
{
    public CursorTreeFixture()
    {
        var random = new Random(2024);
        var keys = new SortedSet<byte[]>(ByteArrayComparer.Instance);
        while (keys.Count < 3000)
        {
            var key = new byte[random.Next(1, 10)];
            for (int i = 0; i < key.Length; i++) key[i] = (byte)(0x40 + random.Next(0, 6));
            keys.Add(key);
        }
        // The extremes of the byte range, to catch signed comparisons.
        keys.Add([0x01]);
        keys.Add([0xFE, 0xFF]);
        Keys = keys.ToList();

        Environment = StorageEnvironment.CreateInMemory();
        using var tx = Environment.BeginWrite();
        var tree = tx.CreateTree("t");
        foreach (var key in TestData.Shuffled(Keys.Count, 1).Select(i => Keys[i])) tree.Put(key, ValueOf(key));
        if (tree.BTree.Header.Depth < 2) throw new InvalidOperationException("the fixture tree must have several levels");
        tx.Commit();
    }

    public StorageEnvironment Environment { get; }

    /// <summary>Every key in bytewise order.</summary>
    public IReadOnlyList<byte[]> Keys { get; }

    public static byte[] ValueOf(byte[] key) => TestData.Value(key.Length * 7919 + key[^1], 40 + key.Length);

    /// <summary>Index of the first model key >= <paramref name="key"/> (Keys.Count when none).</summary>
    public int LowerBound(byte[] key)
    {
        int lo = 0, hi = Keys.Count;
        while (lo < hi)
        {
            int mid = (lo + hi) / 2;
            if (ByteArrayComparer.Instance.Compare(Keys[mid], key) < 0) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    public void Dispose() => Environment.Dispose();
}
