using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Api;

/// <summary>
/// A write transaction's page writer, page source and tree objects serve the next write transaction once it ends,
/// so that a commit does not allocate them anew. Handles an application kept past their transaction (a tree, a
/// cursor, the transaction itself) point at objects that another transaction now uses: every operation through
/// them must be refused, and none may read or change the later transaction's trees.
/// </summary>
public sealed class WriterObjectReuseTests
{
    [Fact]
    public void A_tree_kept_past_its_commit_is_refused_while_the_next_transaction_reuses_its_tree_object()
    {
        using var environment = StorageEnvironment.CreateInMemory();
        Tree stale;
        Cursor staleCursor;
        using (var first = environment.BeginWrite())
        {
            stale = first.CreateTree("t");
            stale.Put("a"u8, "1"u8);
            staleCursor = stale.CreateCursor();
            first.Commit();
        }

        using (var second = environment.BeginWrite())
        {
            var live = second.OpenTree("t");
            live.Put("b"u8, "2"u8);

            Assert.Throws<ObjectDisposedException>(() => stale.Put("x"u8, "stale"u8));
            Assert.Throws<ObjectDisposedException>(() => stale.Delete("b"u8));
            Assert.Throws<ObjectDisposedException>(() => stale.TryGet("b"u8, out _));
            Assert.Throws<ObjectDisposedException>(() => stale.Count);
            Assert.Throws<ObjectDisposedException>(() => stale.Salvage((_, _) => { }));
            Assert.Throws<ObjectDisposedException>(() => staleCursor.First());
            Assert.Throws<ObjectDisposedException>(() => staleCursor.Seek("b"u8));
            Assert.False(staleCursor.IsValid);
            Assert.Equal(TreeOptions.None, stale.Options);

            Assert.Equal(2, live.Count);
            second.Commit();
        }

        using var read = environment.BeginRead();
        var tree = read.OpenTree("t");
        Assert.Equal(2, tree.Count);
        Assert.Null(tree.Get("x"u8));
        Assert.Equal("2"u8.ToArray(), tree.Get("b"u8));
        staleCursor.Dispose();
    }

    [Fact]
    public void An_ended_transaction_keeps_its_own_id_after_its_page_writer_moved_on()
    {
        using var environment = StorageEnvironment.CreateInMemory();
        var first = environment.BeginWrite();
        long firstId = first.TransactionId;
        first.CreateTree("t").Put("a"u8, "1"u8);
        first.Commit();
        using var second = environment.BeginWrite();
        Assert.Equal(firstId + 1, second.TransactionId);
        Assert.Equal(firstId, first.TransactionId);
    }

    [Fact]
    public void A_reused_tree_object_keeps_nothing_of_the_tree_it_was_before()
    {
        using var environment = StorageEnvironment.CreateInMemory();
        using (var setup = environment.BeginWrite())
        {
            var numbers = setup.CreateTree("numbers", TreeOptions.Int64Keys);
            for (long i = 0; i < 2_000; i++) numbers.Put(i, "n"u8);
            var names = setup.CreateTree("names");
            names.Put("only"u8, "x"u8);
            setup.Commit();
        }
        for (int round = 0; round < 20; round++)
        {
            // Each transaction opens the trees in a different order, so each tree object serves the other tree
            // (other key kind, depth and root) in the next; aborting leaves the copy-on-write path in the objects.
            using (var tx = environment.BeginWrite())
            {
                var first = tx.OpenTree(round % 2 == 0 ? "numbers" : "names");
                var second = tx.OpenTree(round % 2 == 0 ? "names" : "numbers");
                var numbers = first.Options == TreeOptions.Int64Keys ? first : second;
                var names = ReferenceEquals(numbers, first) ? second : first;
                Assert.Equal(TreeOptions.Int64Keys, numbers.Options);
                Assert.Equal(TreeOptions.None, names.Options);
                Assert.Throws<ArgumentException>(() => numbers.Put("short"u8, "v"u8));
                names.Put("short"u8, "v"u8);
                numbers.Put(10_000L + round, "appended"u8);
                Assert.Equal(2_001 + (round + 1) / 2, numbers.Count);
                Assert.Equal(2, names.Count);
                if (round % 2 == 0) tx.Commit();
            }
            using var read = environment.BeginRead();
            Assert.Equal(2_000 + (round + 2) / 2, read.OpenTree("numbers").Count);
            Assert.Equal(2, read.OpenTree("names").Count);
        }
    }
}
