using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Api;

/// <summary>
/// A write transaction's page table is kept for the next one (so that commits do not allocate it anew): nothing
/// of an ended transaction may show through it, whether it committed, aborted with pages changed, failed in the
/// middle of a change, or changed more pages than the kept table may hold.
/// </summary>
public sealed class PageTableReuseTests
{
    private static readonly ByteArrayComparer Order = ByteArrayComparer.Instance;

    [Fact]
    public void Transactions_after_aborted_failed_and_very_large_ones_see_only_committed_changes()
    {
        using var env = StorageEnvironment.CreateInMemory();
        var model = new SortedDictionary<byte[], byte[]>(Order);
        var random = new Random(5);
        for (int round = 0; round < 40; round++)
        {
            int kind = round % 4;
            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree("t");
                // A very large transaction changes far more pages than the kept table may hold.
                int puts = kind == 3 && round < 8 ? 9_000 : random.Next(1, 200);
                var changes = new List<(byte[] Key, byte[] Value)>();
                for (int i = 0; i < puts; i++)
                {
                    var key = TestData.Key(random.Next(50_000));
                    var value = TestData.Value(round * 100_000 + i, kind == 3 ? 2_000 : random.Next(1, 600));
                    tree.Put(key, value);
                    changes.Add((key, value));
                }
                if (kind == 1)
                {
                    // Fails after changing pages: the transaction goes on, and is then aborted.
                    Assert.ThrowsAny<ArgumentException>(() => tree.Put(new byte[5000], new byte[1]));
                    continue;
                }
                if (kind == 2) continue;
                tx.Commit();
                foreach (var (key, value) in changes) model[key] = value;
            }
            using var read = env.BeginRead();
            var t = read.OpenTree("t");
            Assert.Equal(model.Count, t.Count);
            using var cursor = t.CreateCursor();
            using var expected = model.GetEnumerator();
            for (bool more = cursor.First(); more; more = cursor.Next())
            {
                Assert.True(expected.MoveNext());
                Assert.Equal(expected.Current.Key, cursor.Key.ToArray());
                Assert.Equal(expected.Current.Value, cursor.Value.ToArray());
            }
            Assert.False(expected.MoveNext());
        }
    }
}
