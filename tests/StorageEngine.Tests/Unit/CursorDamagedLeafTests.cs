using StorageEngine.BTrees;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// A scanning cursor loads the leaf after the one it reads before it gets there, without verifying it. A
/// damaged leaf must still be reported exactly when the scan enters it: every entry before it is returned,
/// none of its bytes is, and nothing is reported early to a scan that stops short of it.
/// </summary>
public sealed unsafe class CursorDamagedLeafTests : IDisposable
{
    private const int Entries = 3_000;
    private const int PageSize = 4096;
    private readonly TempDirectory _directory = new("damaged-leaf");
    private readonly List<byte[]> _damagedKeys;

    public CursorDamagedLeafTests()
    {
        using (var environment = StorageEnvironment.Open(Options()))
        {
            using var tx = environment.BeginWrite();
            var tree = tx.CreateTree("t");
            for (int i = 0; i < Entries; i++) tree.Put(TestData.Key(i), Value(i));
            tx.Commit();
        }
        _damagedKeys = DamageLeafHolding(TestData.Key(Entries / 2));
    }

    public void Dispose() => _directory.Dispose();

    private StorageEnvironmentOptions Options() => new() { Path = _directory.Path, PageSize = PageSize };

    private static byte[] Value(int i) => Enumerable.Repeat((byte)(i % 251), 100).ToArray();

    /// <summary>Flips the last byte of the data file's leaf that holds <paramref name="key"/>; returns that leaf's keys.</summary>
    private List<byte[]> DamageLeafHolding(byte[] key)
    {
        string path = _directory.File("data.sedb");
        var file = File.ReadAllBytes(path);
        for (int offset = 2 * PageSize; offset + PageSize <= file.Length; offset += PageSize)
        {
            var keys = LeafKeys(file.AsSpan(offset, PageSize));
            if (!keys.Any(k => k.AsSpan().SequenceEqual(key))) continue;
            file[offset + PageSize - 1] ^= 0x5A;
            File.WriteAllBytes(path, file);
            return keys;
        }
        throw new InvalidOperationException("no leaf of the data file holds the key");
    }

    private static List<byte[]> LeafKeys(Span<byte> page)
    {
        var keys = new List<byte[]>();
        fixed (byte* p = page)
        {
            if (!Node.IsLeaf(p)) return keys;
            for (int i = 0; i < Node.Count(p); i++) keys.Add(Node.LeafKey(Node.Entry(p, i)).ToArray());
        }
        return keys;
    }

    [Fact]
    public void A_forward_scan_returns_every_entry_before_the_damaged_leaf_and_then_reports_it()
    {
        using var environment = StorageEnvironment.Open(Options());
        using var tx = environment.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();
        var read = new List<byte[]>();

        Assert.Throws<CorruptionException>(() =>
        {
            for (bool on = cursor.First(); on; on = cursor.Next())
            {
                read.Add(cursor.Key.ToArray());
                Assert.True(cursor.Value.SequenceEqual(Value(read.Count - 1)));
            }
        });

        var expected = Enumerable.Range(0, Entries).Select(TestData.Key)
            .TakeWhile(k => k.AsSpan().SequenceCompareTo(_damagedKeys[0]) < 0);
        TestData.AssertSameBytes(expected, read);
    }

    [Fact]
    public void A_backward_scan_returns_every_entry_after_the_damaged_leaf_and_then_reports_it()
    {
        using var environment = StorageEnvironment.Open(Options());
        using var tx = environment.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();
        var read = new List<byte[]>();

        Assert.Throws<CorruptionException>(() =>
        {
            for (bool on = cursor.Last(); on; on = cursor.Previous()) read.Add(cursor.Key.ToArray());
        });

        var expected = Enumerable.Range(0, Entries).Reverse().Select(TestData.Key)
            .TakeWhile(k => k.AsSpan().SequenceCompareTo(_damagedKeys[^1]) > 0);
        TestData.AssertSameBytes(expected, read);
    }

    [Fact]
    public void A_scan_that_ends_in_the_leaf_before_the_damaged_one_reports_nothing()
    {
        using var environment = StorageEnvironment.Open(Options());
        int first = Enumerable.Range(0, Entries).First(i => TestData.Key(i).AsSpan().SequenceEqual(_damagedKeys[0]));
        using var tx = environment.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();

        // Seek a few entries before the damaged leaf and read up to its edge: the leaf after is prefetched.
        Assert.True(cursor.Seek(TestData.Key(first - 5)));
        for (int i = first - 4; i < first; i++)
        {
            Assert.True(cursor.Next());
            Assert.Equal(TestData.Key(i), cursor.Key.ToArray());
        }

        Assert.Throws<CorruptionException>(() => cursor.Next());
    }
}
