using System.Text;

namespace StorageEngine.Tests.Api;

/// <summary><c>foreach</c> over a cursor and over <see cref="Tree.Entries"/>.</summary>
public sealed class CursorEnumerationTests
{
    private static StorageEnvironment EnvironmentWith(int entries, out string[] keys)
    {
        var env = StorageEnvironment.CreateInMemory();
        keys = Enumerable.Range(0, entries).Select(i => $"key{i:D5}").ToArray();
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        foreach (var key in keys) tree.Put(Encoding.UTF8.GetBytes(key), Encoding.UTF8.GetBytes("value of " + key));
        tx.Commit();
        return env;
    }

    [Fact]
    public void Foreach_over_a_cursor_visits_every_entry_of_its_range_in_key_order()
    {
        using var env = EnvironmentWith(1000, out var keys);
        using var tx = env.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor(KeyRange.Prefix("key009"u8));

        var seen = new List<string>();
        foreach (var (key, value) in cursor)
        {
            Assert.Equal("value of " + Encoding.UTF8.GetString(key), Encoding.UTF8.GetString(value));
            seen.Add(Encoding.UTF8.GetString(key));
        }

        Assert.Equal(keys.Where(k => k.StartsWith("key009", StringComparison.Ordinal)), seen);
    }

    [Fact]
    public void Foreach_over_tree_entries_visits_the_range_and_disposes_its_cursor()
    {
        using var env = EnvironmentWith(300, out var keys);
        using var tx = env.BeginRead();
        var tree = tx.OpenTree("t");

        var all = new List<string>();
        foreach (var entry in tree.Entries()) all.Add(Encoding.UTF8.GetString(entry.Key));
        var some = new List<string>();
        foreach (var entry in tree.Entries(KeyRange.Between("key00100"u8, "key00110"u8))) some.Add(Encoding.UTF8.GetString(entry.Key));

        Assert.Equal(keys, all);
        Assert.Equal(keys[100..110], some);
    }

    [Fact]
    public void Foreach_over_an_empty_range_visits_nothing_and_can_start_again()
    {
        using var env = EnvironmentWith(10, out _);
        using var tx = env.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor(KeyRange.Prefix("none"u8));

        int count = 0;
        foreach (var entry in cursor) count++;
        foreach (var entry in cursor) count++;

        Assert.Equal(0, count);
    }

    [Fact]
    public void Foreach_over_an_existing_cursor_allocates_nothing()
    {
        using var env = EnvironmentWith(5000, out _);
        using var tx = env.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();
        long Sum()
        {
            long bytes = 0;
            foreach (var (key, value) in cursor) bytes += key.Length + value.Length;
            return bytes;
        }
        long expected = Sum();

        // The least of a few passes: tiered compilation may recompile the loop (and allocate on this thread while
        // doing so) during any early pass; a pass that allocates nothing shows the loop itself allocates nothing.
        long allocated = long.MaxValue;
        for (int pass = 0; pass < 5 && allocated != 0; pass++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            long bytes = Sum();
            allocated = Math.Min(allocated, GC.GetAllocatedBytesForCurrentThread() - before);
            Assert.Equal(expected, bytes);
        }
        Assert.Equal(0, allocated);
    }

    [Fact]
    public void Current_outside_an_entry_and_a_loop_after_the_transaction_ended_fail_clearly()
    {
        using var env = EnvironmentWith(3, out _);
        var tx = env.BeginRead();
        var cursor = tx.OpenTree("t").CreateCursor();

        var notStarted = Record.Exception(() => { var e = cursor.GetEnumerator(); _ = e.Current; });
        Assert.IsType<InvalidOperationException>(notStarted);
        tx.Dispose();
        var ended = Record.Exception(() => { foreach (var entry in cursor) { } });
        Assert.True(ended is ObjectDisposedException or InvalidOperationException, ended?.ToString());
    }
}
