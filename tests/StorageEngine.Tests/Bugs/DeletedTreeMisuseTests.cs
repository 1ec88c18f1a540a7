namespace StorageEngine.Tests.Bugs;

/// <summary>
/// A cursor on a tree deleted in the same transaction threw CorruptionException ("the tree header gives a depth of
/// 0") though the file was healthy: an application would have treated its database as damaged. Using a deleted
/// tree, its cursors, a disposed cursor, or the trees and cursors of an ended transaction is misuse and is
/// reported as such (InvalidOperationException, ObjectDisposedException), never as corruption.
/// </summary>
public sealed class DeletedTreeMisuseTests
{
    private static StorageEnvironment EnvironmentWithTree(int keys)
    {
        var environment = StorageEnvironment.CreateInMemory();
        using var transaction = environment.BeginWrite();
        var tree = transaction.CreateTree("t", TreeOptions.Int64Keys);
        for (long key = 0; key < keys; key++) tree.Put(key, BitConverter.GetBytes(key));
        transaction.Commit();
        return environment;
    }

    [Theory]
    [InlineData(3)]
    [InlineData(2_000)]
    public void A_cursor_on_a_tree_deleted_in_its_transaction_throws_InvalidOperationException_not_corruption(int keys)
    {
        using var environment = EnvironmentWithTree(keys);
        using var transaction = environment.BeginWrite();
        var tree = transaction.OpenTree("t");
        using var cursor = tree.CreateCursor();
        Assert.True(cursor.First());
        Assert.True(transaction.DeleteTree("t"));

        var uses = new Action[]
        {
            () => cursor.First(),
            () => cursor.Last(),
            () => cursor.Next(),
            () => cursor.Previous(),
            () => cursor.Seek(1L),
            () => cursor.SeekAtOrBefore(BitConverter.GetBytes(1L)),
            () => _ = cursor.Key.Length,
            () => _ = cursor.Value.Length,
            () => tree.CreateCursor(),
            () => tree.TryGet(1L, out _),
            () => tree.Put(1L, "x"u8),
            () => tree.Delete(1L),
            () => _ = tree.Count,
            () => tree.GetStatistics(),
        };
        foreach (var use in uses)
        {
            var e = Assert.IsType<InvalidOperationException>(Record.Exception(use));
            Assert.Contains("'t' was deleted in this transaction", e.Message);
        }
        Assert.False(cursor.IsValid);

        // Misuse does not fail the transaction: it commits the deletion.
        transaction.Commit();
        using var reader = environment.BeginRead();
        Assert.Empty(reader.GetTreeNames());
        Assert.True(environment.Check().IsHealthy);
    }

    [Fact]
    public void The_tree_and_cursors_of_a_deleted_tree_stay_refused_after_a_tree_of_the_same_name_is_created()
    {
        using var environment = EnvironmentWithTree(500);
        using var transaction = environment.BeginWrite();
        var old = transaction.OpenTree("t");
        using var oldCursor = old.CreateCursor();
        Assert.True(oldCursor.Seek(250L));
        transaction.DeleteTree("t");
        var recreated = transaction.CreateTree("t", TreeOptions.Int64Keys);
        recreated.Put(7L, "seven"u8);

        Assert.IsType<InvalidOperationException>(Record.Exception(() => oldCursor.Next()));
        Assert.IsType<InvalidOperationException>(Record.Exception(() => old.TryGet(7L, out _)));
        Assert.NotSame(old, recreated);
        using var cursor = recreated.CreateCursor();
        Assert.True(cursor.First());
        Assert.Equal(7L, cursor.Int64Key);
        transaction.Commit();
        Assert.True(environment.Check().IsHealthy);
    }

    [Fact]
    public void A_disposed_cursor_and_the_cursors_and_trees_of_ended_transactions_throw_ObjectDisposedException()
    {
        using var environment = EnvironmentWithTree(100);
        var write = environment.BeginWrite();
        var writeTree = write.OpenTree("t");
        var writeCursor = writeTree.CreateCursor();
        Assert.True(writeCursor.First());
        var disposedCursor = writeTree.CreateCursor();
        disposedCursor.Dispose();
        Assert.IsType<ObjectDisposedException>(Record.Exception(() => disposedCursor.First()));
        write.Commit();

        var read = environment.BeginRead();
        var readTree = read.OpenTree("t");
        var readCursor = readTree.CreateCursor();
        Assert.True(readCursor.Last());
        read.Dispose();

        var uses = new Action[]
        {
            () => writeCursor.Next(),
            () => _ = writeCursor.Key.Length,
            () => writeTree.Put(1L, "x"u8),
            () => writeTree.TryGet(1L, out _),
            () => write.DeleteTree("t"),
            () => readCursor.Previous(),
            () => _ = readCursor.Value.Length,
            () => readTree.TryGet(1L, out _),
            () => read.OpenTree("t"),
        };
        foreach (var use in uses) Assert.IsType<ObjectDisposedException>(Record.Exception(use));
        Assert.True(environment.Check().IsHealthy);
    }
}
