namespace StorageEngine.Tests.Api;

/// <summary>Misusing a transaction throws at once, with a message that names the mistake.</summary>
public sealed class TransactionMisuseTests : IDisposable
{
    private readonly StorageEnvironment _env = StorageEnvironment.CreateInMemory();

    public TransactionMisuseTests()
    {
        using var tx = _env.BeginWrite();
        tx.CreateTree("t").Put("k"u8, "v"u8);
        tx.Commit();
    }

    public void Dispose() => _env.Dispose();

    [Fact]
    public void Writing_in_a_read_transaction_throws_InvalidOperationException_naming_the_mistake()
    {
        using var tx = _env.BeginRead();
        var tree = tx.OpenTree("t");

        var put = Assert.Throws<InvalidOperationException>(() => tree.Put("a"u8, "b"u8));
        Assert.Contains("read transaction", put.Message);
        Assert.Contains("BeginWrite", put.Message);
        var delete = Assert.Throws<InvalidOperationException>(() => tree.Delete("k"u8));
        Assert.Contains("read transaction", delete.Message);
        Assert.Throws<InvalidOperationException>(() => tree.Put(1L, "b"u8));
        Assert.Equal("v"u8.ToArray(), tree.Get("k"u8));
        Assert.False(tx.IsWritable);
    }

    [Fact]
    public void Using_a_disposed_read_transaction_throws_ObjectDisposedException()
    {
        var tx = _env.BeginRead();
        var tree = tx.OpenTree("t");
        tx.Dispose();

        var e = Assert.Throws<ObjectDisposedException>(() => tree.Get("k"u8));
        Assert.Contains("ended", e.Message);
        Assert.Throws<ObjectDisposedException>(() => tree.Count);
        Assert.Throws<ObjectDisposedException>(() => tree.CreateCursor());
        Assert.Throws<ObjectDisposedException>(() => tx.OpenTree("t"));
        Assert.Throws<ObjectDisposedException>(() => tx.GetTreeNames());
        tx.Dispose(); // a second dispose is harmless
    }

    [Fact]
    public void Using_a_disposed_write_transaction_throws_ObjectDisposedException()
    {
        var tx = _env.BeginWrite();
        var tree = tx.OpenTree("t");
        tx.Dispose();

        Assert.Throws<ObjectDisposedException>(() => tree.Put("a"u8, "b"u8));
        Assert.Throws<ObjectDisposedException>(() => tree.Delete("k"u8));
        Assert.Throws<ObjectDisposedException>(() => tx.CreateTree("u"));
        Assert.Throws<ObjectDisposedException>(() => tx.DeleteTree("t"));
        Assert.Throws<ObjectDisposedException>(() => tx.Commit());
    }

    [Fact]
    public void A_tree_from_a_committed_transaction_cannot_be_used_afterwards()
    {
        Tree tree;
        using (var tx = _env.BeginWrite())
        {
            tree = tx.OpenTree("t");
            tx.Commit();
        }
        Assert.Throws<ObjectDisposedException>(() => tree.Get("k"u8));
        Assert.Throws<ObjectDisposedException>(() => tree.Put("k"u8, "w"u8));
    }

    [Fact]
    public void Committing_twice_throws_and_keeps_the_first_commit()
    {
        var tx = _env.BeginWrite();
        tx.OpenTree("t").Put("k"u8, "second"u8);
        tx.Commit();
        long committed = _env.LastCommittedTransactionId;

        Assert.ThrowsAny<InvalidOperationException>(() => tx.Commit());

        Assert.Equal(committed, _env.LastCommittedTransactionId);
        using var rtx = _env.BeginRead();
        Assert.Equal("second"u8.ToArray(), rtx.OpenTree("t").Get("k"u8));
    }

    [Fact]
    public void Commit_after_Abort_throws()
    {
        var tx = _env.BeginWrite();
        tx.OpenTree("t").Put("k"u8, "lost"u8);
        tx.Abort();

        Assert.Throws<ObjectDisposedException>(() => tx.Commit());
        using var rtx = _env.BeginRead();
        Assert.Equal("v"u8.ToArray(), rtx.OpenTree("t").Get("k"u8));
    }

    [Fact]
    public void A_cursor_used_after_its_transaction_ended_throws_ObjectDisposedException()
    {
        var tx = _env.BeginRead();
        var cursor = tx.OpenTree("t").CreateCursor();
        Assert.True(cursor.First());
        tx.Dispose();

        Assert.False(cursor.IsValid);
        Assert.Throws<ObjectDisposedException>(() => cursor.Next());
        Assert.Throws<ObjectDisposedException>(() => cursor.First());
        Assert.Throws<ObjectDisposedException>(() => cursor.Seek("k"u8));
        Assert.Throws<ObjectDisposedException>(() => cursor.Key.ToArray());
        Assert.Throws<ObjectDisposedException>(() => cursor.Value.ToArray());
    }

    [Fact]
    public void A_disposed_cursor_throws_ObjectDisposedException()
    {
        using var tx = _env.BeginRead();
        var cursor = tx.OpenTree("t").CreateCursor();
        cursor.Dispose();
        Assert.Throws<ObjectDisposedException>(() => cursor.First());
    }

    [Fact]
    public void Reading_a_cursor_that_is_not_on_an_entry_throws_InvalidOperationException()
    {
        using var tx = _env.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();
        var e = Assert.Throws<InvalidOperationException>(() => cursor.Key.ToArray());
        Assert.Contains("not on an entry", e.Message);
        Assert.False(cursor.Seek("z"u8));
        Assert.Throws<InvalidOperationException>(() => cursor.Value.ToArray());
    }

    [Fact]
    public void Opening_a_missing_tree_throws_KeyNotFoundException_naming_it()
    {
        using var tx = _env.BeginRead();
        var e = Assert.Throws<KeyNotFoundException>(() => tx.OpenTree("missing"));
        Assert.Contains("missing", e.Message);
    }
}
