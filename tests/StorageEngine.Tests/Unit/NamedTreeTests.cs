using System.Text;
using StorageEngine.Platform;

namespace StorageEngine.Tests.Unit;

/// <summary>Creating, opening, listing, deleting and reopening named trees.</summary>
public sealed class NamedTreeTests
{
    [Fact]
    public void A_new_environment_has_no_trees()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using var tx = env.BeginRead();
        Assert.Empty(tx.GetTreeNames());
        Assert.False(tx.TryOpenTree("t", out _));
        Assert.Throws<KeyNotFoundException>(() => tx.OpenTree("t"));
    }

    [Fact]
    public void Created_trees_are_listed_in_utf8_byte_order_and_open_in_later_transactions()
    {
        using var env = StorageEnvironment.CreateInMemory();
        string[] names = ["zeta", "Alpha", "alpha", "日本", "é", "a"];
        using (var tx = env.BeginWrite())
        {
            foreach (var name in names) tx.CreateTree(name).Put(TestData.Utf8(name), TestData.Utf8(name.ToUpperInvariant()));
            tx.Commit();
        }
        using var rtx = env.BeginRead();
        var expected = names.OrderBy(n => Encoding.UTF8.GetBytes(n), ByteArrayComparer.Instance).ToList();
        Assert.Equal(expected, rtx.GetTreeNames());
        foreach (var name in names)
        {
            var tree = rtx.OpenTree(name);
            Assert.Equal(name, tree.Name);
            Assert.Equal(1, tree.Count);
            Assert.Equal(TestData.Utf8(name.ToUpperInvariant()), tree.Get(TestData.Utf8(name)));
        }
    }

    [Fact]
    public void CreateTree_of_an_existing_tree_opens_it_with_its_contents()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("k"u8, "v"u8);
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            Assert.Equal("v"u8.ToArray(), tree.Get("k"u8));
            Assert.Same(tree, tx.CreateTree("t"));
            Assert.Same(tree, tx.OpenTree("t"));
        }
    }

    [Fact]
    public void Trees_are_independent_key_spaces()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using var tx = env.BeginWrite();
        var a = tx.CreateTree("a");
        var b = tx.CreateTree("b");
        a.Put("k"u8, "in a"u8);
        b.Put("k"u8, "in b"u8);
        Assert.True(a.Delete("k"u8));
        Assert.False(a.ContainsKey("k"u8));
        Assert.Equal("in b"u8.ToArray(), b.Get("k"u8));
    }

    [Fact]
    public void A_tree_created_in_an_aborted_transaction_does_not_exist()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("k"u8, "v"u8);
            tx.Abort();
        }
        using (var rtx = env.BeginRead()) Assert.Empty(rtx.GetTreeNames());
        TestData.AssertHealthy(env);
    }

    [Fact]
    public void Deleting_a_tree_frees_all_its_pages()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("keep").Put("k"u8, "v"u8);
            tx.Commit();
        }
        long baseline = env.Check().PagesInUse;
        using (var tx = env.BeginWrite())
        {
            var victim = tx.CreateTree("victim");
            for (int i = 0; i < 3000; i++) victim.Put(TestData.Key(i), TestData.Value(i, i % 100 == 0 ? 5000 : 50));
            tx.Commit();
        }
        var full = env.Check();
        Assert.True(full.PagesInUse > baseline + 40, full.ToString());
        Assert.Equal(2, full.TreeCount);

        using (var tx = env.BeginWrite())
        {
            Assert.True(tx.DeleteTree("victim"));
            Assert.False(tx.DeleteTree("victim"));
            Assert.False(tx.DeleteTree("never existed"));
            Assert.Equal(["keep"], tx.GetTreeNames());
            tx.Commit();
        }
        var after = env.Check();
        Assert.True(after.IsHealthy, after.ToString());
        Assert.Equal(1, after.TreeCount);
        Assert.Equal(1, after.EntryCount);
        Assert.Equal(baseline, after.PagesInUse);
        using var rtx = env.BeginRead();
        Assert.Equal(["keep"], rtx.GetTreeNames());
        Assert.False(rtx.TryOpenTree("victim", out _));
    }

    [Fact]
    public void A_deleted_tree_can_be_recreated_empty_in_the_same_transaction()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            var t = tx.CreateTree("t");
            for (int i = 0; i < 500; i++) t.Put(TestData.Key(i), TestData.Value(i, 100));
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            var old = tx.OpenTree("t");
            Assert.True(tx.DeleteTree("t"));
            Assert.Throws<InvalidOperationException>(() => old.Count);
            Assert.Throws<KeyNotFoundException>(() => tx.OpenTree("t"));
            var fresh = tx.CreateTree("t", TreeOptions.Int64Keys);
            Assert.Equal(0, fresh.Count);
            fresh.Put(1L, "one"u8);
            tx.Commit();
        }
        using (var rtx = env.BeginRead())
        {
            var t = rtx.OpenTree("t");
            Assert.Equal(TreeOptions.Int64Keys, t.Options);
            Assert.Equal(1, t.Count);
        }
        TestData.AssertHealthy(env);
    }

    [Fact]
    public void CreateTree_with_other_options_than_the_existing_tree_throws()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("bytes");
            tx.CreateTree("ints", TreeOptions.Int64Keys);
            // Also before the first commit.
            Assert.Throws<ArgumentException>(() => tx.CreateTree("bytes", TreeOptions.Int64Keys));
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            var e = Assert.Throws<ArgumentException>(() => tx.CreateTree("bytes", TreeOptions.Int64Keys));
            Assert.Contains("bytes", e.Message);
            Assert.Throws<ArgumentException>(() => tx.CreateTree("ints"));
            Assert.Equal(TreeOptions.Int64Keys, tx.CreateTree("ints", TreeOptions.Int64Keys).Options);
        }
    }

    [Fact]
    public void Invalid_tree_names_are_rejected()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using var tx = env.BeginWrite();
        Assert.Throws<ArgumentException>(() => tx.CreateTree(""));
        Assert.Throws<ArgumentException>(() => tx.CreateTree(new string('x', 256)));
        Assert.Throws<ArgumentNullException>(() => tx.CreateTree(null!));
        Assert.Equal(255, tx.CreateTree(new string('x', 255)).Name.Length);
    }

    [Fact]
    public void A_hundred_trees_live_side_by_side_and_survive_reopening()
    {
        var fs = new MemoryFileSystem();
        var options = TestData.SafeOptions(fs);
        var names = Enumerable.Range(0, 100).Select(i => $"tree-{i:D3}").ToList();
        using (var env = StorageEnvironment.Open(options))
        {
            using var tx = env.BeginWrite();
            for (int t = 0; t < names.Count; t++)
            {
                var tree = tx.CreateTree(names[t], t % 2 == 0 ? TreeOptions.None : TreeOptions.Int64Keys);
                for (int i = 0; i < t + 1; i++)
                {
                    if (t % 2 == 0) tree.Put(TestData.Key(i), TestData.Value(t * 1000 + i, 30));
                    else tree.Put(i, TestData.Value(t * 1000 + i, 30));
                }
            }
            tx.Commit();
        }
        using (var env = StorageEnvironment.Open(options))
        {
            using (var rtx = env.BeginRead())
            {
                Assert.Equal(names, rtx.GetTreeNames());
                for (int t = 0; t < names.Count; t++)
                {
                    var tree = rtx.OpenTree(names[t]);
                    Assert.Equal(t + 1, tree.Count);
                    Assert.Equal(t % 2 == 0 ? TreeOptions.None : TreeOptions.Int64Keys, tree.Options);
                    for (int i = 0; i < t + 1; i++)
                        Assert.Equal(TestData.Value(t * 1000 + i, 30), t % 2 == 0 ? tree.Get(TestData.Key(i)) : tree.TryGet(i, out var v) ? v.ToArray() : null);
                }
            }
            var report = env.Check();
            Assert.True(report.IsHealthy, report.ToString());
            Assert.Equal(100, report.TreeCount);
            Assert.Equal(100 * 101 / 2, report.EntryCount);
        }
    }

    [Fact]
    public void Trees_and_deletions_survive_reopening_from_a_directory_on_disk()
    {
        using var dir = new TempDirectory("trees");
        using (var env = StorageEnvironment.Open(dir.Path))
        {
            using (var tx = env.BeginWrite())
            {
                tx.CreateTree("a").Put("1"u8, "a1"u8);
                tx.CreateTree("b").Put("1"u8, "b1"u8);
                tx.CreateTree("c").Put("1"u8, "c1"u8);
                tx.Commit();
            }
            using (var tx = env.BeginWrite())
            {
                tx.DeleteTree("b");
                tx.Commit();
            }
        }
        using (var env = StorageEnvironment.Open(dir.Path))
        {
            using (var rtx = env.BeginRead())
            {
                Assert.Equal(["a", "c"], rtx.GetTreeNames());
                Assert.Equal("c1"u8.ToArray(), rtx.OpenTree("c").Get("1"u8));
            }
            TestData.AssertHealthy(env);
        }
    }
}
