using System.Text;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// In a write transaction, reading Key or Value of a cursor whose entry had been deleted moved the cursor to the
/// entry after it and returned that: past the cursor's range (a Prefix("a") cursor returned "b1"), and the next
/// Next then skipped the entry read. Reading now throws InvalidOperationException and leaves the cursor where its
/// entry stood; Next and Previous step from there, within the range.
/// </summary>
public sealed class ReadingADeletedCursorEntryDoesNotMoveTheCursorTests
{
    private static byte[] B(string text) => Encoding.UTF8.GetBytes(text);

    private static StorageEnvironment OpenWith(params string[] keys)
    {
        var environment = StorageEnvironment.Open(new StorageEnvironmentOptions { Durability = DurabilityMode.InMemory });
        using var write = environment.BeginWrite();
        var tree = write.CreateTree("t");
        foreach (string key in keys) tree.Put(B(key), B("value of " + key));
        write.Commit();
        return environment;
    }

    [Fact]
    public void Key_and_Value_of_a_deleted_entry_throw_and_Next_reaches_the_entry_after_it()
    {
        using var environment = OpenWith("a1", "a2", "a3", "a4");
        using var write = environment.BeginWrite();
        var tree = write.OpenTree("t");
        using var cursor = tree.CreateCursor();
        Assert.True(cursor.Seek(B("a2")));
        tree.Delete(B("a2"));

        var key = Assert.Throws<InvalidOperationException>(() => cursor.Key.ToArray());
        Assert.Contains("deleted", key.Message);
        Assert.Throws<InvalidOperationException>(() => cursor.Value.ToArray());
        Assert.Throws<InvalidOperationException>(() => cursor.Key.ToArray());

        Assert.True(cursor.Next());
        Assert.Equal(B("a3"), cursor.Key.ToArray());
        // The refusals did not fail the transaction.
        write.Commit();
    }

    [Fact]
    public void Previous_from_a_deleted_entry_reaches_the_entry_before_it()
    {
        using var environment = OpenWith("a1", "a2", "a3");
        using var write = environment.BeginWrite();
        var tree = write.OpenTree("t");
        using var cursor = tree.CreateCursor();
        Assert.True(cursor.Seek(B("a2")));
        tree.Delete(B("a2"));
        Assert.Throws<InvalidOperationException>(() => cursor.Key.ToArray());
        Assert.True(cursor.Previous());
        Assert.Equal(B("a1"), cursor.Key.ToArray());
    }

    [Fact]
    public void A_prefix_cursor_never_shows_a_key_outside_its_prefix()
    {
        using var environment = OpenWith("a1", "a9", "b1", "b2");
        using var write = environment.BeginWrite();
        var tree = write.OpenTree("t");
        using var cursor = tree.CreateCursor(KeyRange.Prefix(B("a")));
        Assert.True(cursor.Last());
        Assert.Equal(B("a9"), cursor.Key.ToArray());
        tree.Delete(B("a9"));

        Assert.Throws<InvalidOperationException>(() => cursor.Key.ToArray());
        Assert.False(cursor.Next());
    }

    [Fact]
    public void The_last_entry_deleted_leaves_nothing_to_step_to_and_Previous_finds_the_new_last()
    {
        using var environment = OpenWith("a1", "a2");
        using var write = environment.BeginWrite();
        var tree = write.OpenTree("t");
        using (var cursor = tree.CreateCursor())
        {
            Assert.True(cursor.Last());
            tree.Delete(B("a2"));
            Assert.Throws<InvalidOperationException>(() => cursor.Value.ToArray());
            Assert.False(cursor.Next());
        }
        tree.Put(B("a2"), B("back"));
        using (var cursor = tree.CreateCursor())
        {
            Assert.True(cursor.Last());
            tree.Delete(B("a2"));
            Assert.Throws<InvalidOperationException>(() => cursor.Key.ToArray());
            Assert.True(cursor.Previous());
            Assert.Equal(B("a1"), cursor.Key.ToArray());
        }
    }

    [Fact]
    public void Deleting_each_entry_as_a_scan_reaches_it_visits_every_entry_once()
    {
        var keys = Enumerable.Range(0, 2000).Select(i => $"k{i:D5}").ToArray();
        using var environment = OpenWith(keys);
        using var write = environment.BeginWrite();
        var tree = write.OpenTree("t");
        var seen = new List<string>();
        using var cursor = tree.CreateCursor();
        for (bool more = cursor.First(); more; more = cursor.Next())
        {
            string key = Encoding.UTF8.GetString(cursor.Key);
            seen.Add(key);
            tree.Delete(cursor.Key);
            // Reading after the delete is refused, and does not move the cursor.
            Assert.Throws<InvalidOperationException>(() => cursor.Key.ToArray());
        }
        Assert.Equal(keys, seen);
        using var check = tree.CreateCursor();
        Assert.False(check.First());
    }

    [Fact]
    public void An_entry_deleted_and_put_again_is_read_with_its_new_value()
    {
        using var environment = OpenWith("a1", "a2", "a3");
        using var write = environment.BeginWrite();
        var tree = write.OpenTree("t");
        using var cursor = tree.CreateCursor();
        Assert.True(cursor.Seek(B("a2")));
        tree.Delete(B("a2"));
        tree.Put(B("a2"), B("again"));
        Assert.Equal(B("again"), cursor.Value.ToArray());
        Assert.True(cursor.Next());
        Assert.Equal(B("a3"), cursor.Key.ToArray());
    }
}
