namespace StorageEngine.Tests.Unit;

/// <summary>A cursor in a write transaction follows the changes the same transaction makes while it walks.</summary>
public sealed class CursorInWriteTransactionTests
{
    private const int KeyCount = 2000;

    private static (StorageEnvironment Env, WriteTransaction Tx, Tree Tree) Setup(int count = KeyCount)
    {
        var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (int i = 0; i < count; i++) tree.Put(TestData.Key(i * 2), TestData.Value(i, 60));
            tx.Commit();
        }
        var write = env.BeginWrite();
        return (env, write, write.OpenTree("t"));
    }

    [Fact]
    public void Deleting_the_current_key_then_Next_goes_to_the_following_key()
    {
        var (env, tx, tree) = Setup();
        using (env)
        using (tx)
        {
            using var cursor = tree.CreateCursor();
            var visited = new List<byte[]>();
            for (bool ok = cursor.First(); ok; ok = cursor.Next())
            {
                var key = cursor.Key.ToArray();
                visited.Add(key);
                Assert.True(tree.Delete(key));
            }
            TestData.AssertSameBytes(Enumerable.Range(0, KeyCount).Select(i => TestData.Key(i * 2)), visited);
            Assert.Equal(0, tree.Count);
            tx.Commit();
        }
    }

    [Fact]
    public void Deleting_every_other_key_during_a_scan_keeps_exactly_the_others()
    {
        var (env, tx, tree) = Setup();
        using (env)
        {
            using (tx)
            {
                using var cursor = tree.CreateCursor();
                int index = 0;
                for (bool ok = cursor.First(); ok; ok = cursor.Next(), index++)
                {
                    Assert.Equal(TestData.Key(index * 2), cursor.Key.ToArray());
                    if (index % 2 == 1) Assert.True(tree.Delete(cursor.Key.ToArray()));
                }
                Assert.Equal(KeyCount, index);
                tx.Commit();
            }
            using var rtx = env.BeginRead();
            TestData.AssertSameBytes(Enumerable.Range(0, KeyCount / 2).Select(i => TestData.Key(i * 4)), TestData.Scan(rtx.OpenTree("t")).Select(e => e.Key));
            TestData.AssertHealthy(env);
        }
    }

    [Fact]
    public void Keys_inserted_ahead_of_the_cursor_are_visited_and_keys_behind_it_are_not()
    {
        var (env, tx, tree) = Setup();
        using (env)
        using (tx)
        {
            using var cursor = tree.CreateCursor();
            var visited = new List<byte[]>();
            for (bool ok = cursor.First(); ok; ok = cursor.Next())
            {
                var key = cursor.Key.ToArray();
                visited.Add(key);
                int n = int.Parse(System.Text.Encoding.ASCII.GetString(key, 1, 8));
                if (n % 2 == 0 && n < 2 * KeyCount)
                {
                    // An odd key just ahead (visited next) and one behind (never visited), with values big enough to split pages.
                    tree.Put(TestData.Key(n + 1), TestData.Value(n, 200));
                    if (n > 0) tree.Put(TestData.Key(n - 1).Concat("x"u8.ToArray()).ToArray(), TestData.Value(n, 200));
                }
            }
            TestData.AssertSameBytes(Enumerable.Range(0, 2 * KeyCount).Select(TestData.Key), visited);
            Assert.Equal(3 * KeyCount - 1, tree.Count);
        }
    }

    [Fact]
    public void Keys_deleted_ahead_of_the_cursor_are_skipped()
    {
        var (env, tx, tree) = Setup();
        using (env)
        using (tx)
        {
            using var cursor = tree.CreateCursor();
            var visited = new List<int>();
            for (bool ok = cursor.First(); ok; ok = cursor.Next())
            {
                int n = int.Parse(System.Text.Encoding.ASCII.GetString(cursor.Key.ToArray(), 1, 8));
                visited.Add(n);
                // Delete the next 4 keys (entries 2..8 ahead in value), crossing leaf boundaries and causing merges.
                for (int d = 2; d <= 8; d += 2) tree.Delete(TestData.Key(n + d));
            }
            Assert.Equal(Enumerable.Range(0, (KeyCount + 4) / 5).Select(i => i * 10), visited);
        }
    }

    [Fact]
    public void Replacing_values_during_a_scan_visits_each_key_once_and_keeps_the_new_values()
    {
        var (env, tx, tree) = Setup();
        using (env)
        using (tx)
        {
            using var cursor = tree.CreateCursor();
            int visited = 0;
            for (bool ok = cursor.First(); ok; ok = cursor.Next())
            {
                var key = cursor.Key.ToArray();
                // Growing values force splits under the cursor.
                tree.Put(key, TestData.Value(visited, 300));
                Assert.Equal(key, cursor.Key.ToArray());
                Assert.Equal(TestData.Value(visited, 300), cursor.Value.ToArray());
                visited++;
            }
            Assert.Equal(KeyCount, visited);
            Assert.Equal(KeyCount, tree.Count);
            tx.Commit();
        }
    }

    [Fact]
    public void Deleting_the_current_key_then_Previous_goes_to_the_preceding_key()
    {
        var (env, tx, tree) = Setup();
        using (env)
        using (tx)
        {
            using var cursor = tree.CreateCursor();
            var visited = new List<byte[]>();
            for (bool ok = cursor.Last(); ok; ok = cursor.Previous())
            {
                var key = cursor.Key.ToArray();
                visited.Add(key);
                Assert.True(tree.Delete(key));
            }
            TestData.AssertSameBytes(Enumerable.Range(0, KeyCount).Reverse().Select(i => TestData.Key(i * 2)), visited);
            Assert.Equal(0, tree.Count);
        }
    }

    [Fact]
    public void A_range_cursor_deleting_its_range_stops_at_the_bound()
    {
        var (env, tx, tree) = Setup();
        using (env)
        using (tx)
        {
            var range = KeyRange.Between(TestData.Key(1000), TestData.Key(3000));
            using var cursor = tree.CreateCursor(range);
            int deleted = 0;
            for (bool ok = cursor.First(); ok; ok = cursor.Next())
            {
                Assert.True(tree.Delete(cursor.Key.ToArray()));
                deleted++;
            }
            Assert.Equal(1000, deleted);
            Assert.Equal(KeyCount - 1000, tree.Count);
            Assert.True(tree.ContainsKey(TestData.Key(998)));
            Assert.True(tree.ContainsKey(TestData.Key(3000)));
            tx.Commit();
            TestData.AssertHealthy(env);
        }
    }
}
