namespace DocumentStore.Tests;

public sealed class ChangeFeedTests
{
    [Fact]
    public void Every_put_and_delete_gets_the_next_sequence_number_in_commit_order()
    {
        using var db = TestDatabase.InMemory();
        long firstTransaction;
        using (var w = db.Database.BeginWrite())
        {
            firstTransaction = w.SnapshotId + 1;
            w.StoreJson("people", "a", "{}");
            w.StoreJson("people", "b", "{}");
            w.Commit();
        }
        using (var w = db.Database.BeginWrite())
        {
            w.Delete("people", "a");
            w.Delete("people", "missing");
            w.Commit();
        }

        using var session = db.Database.BeginRead();
        var changes = session.GetChanges();
        Assert.Equal(
            [new Change(1, firstTransaction, "people", "a", ChangeKind.Put), new Change(2, firstTransaction, "people", "b", ChangeKind.Put),
             new Change(3, firstTransaction + 1, "people", "a", ChangeKind.Delete)],
            changes);
        Assert.Equal(3, session.LastChangeSequence);
        Assert.Equal([3L], session.GetChanges(afterSequence: 2).Select(c => c.Sequence));
        Assert.Equal([1L, 2L], session.GetChanges(max: 2).Select(c => c.Sequence));
    }

    [Fact]
    public async Task A_watcher_receives_changes_committed_after_it_started_waiting()
    {
        using var db = TestDatabase.InMemory();
        db.Store("people", "before", new Person("A", 1, "X"));
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        var received = new List<Change>();

        var watcher = Task.Run(async () =>
        {
            await foreach (var change in db.Database.WatchChangesAsync(afterSequence: 1, timeout.Token))
            {
                received.Add(change);
                if (received.Count == 2) return;
            }
        });
        await Task.Delay(50);
        db.Store("people", "after1", new Person("B", 2, "Y"));
        db.Store("people", "after2", new Person("C", 3, "Z"));
        await watcher;

        Assert.Equal(["after1", "after2"], received.Select(c => c.Id));
    }

    [Fact]
    public async Task Disposing_the_database_ends_a_waiting_watcher()
    {
        var db = TestDatabase.InMemory();
        var watcher = Task.Run(async () =>
        {
            await foreach (var _ in db.Database.WatchChangesAsync()) { }
        });
        await Task.Delay(50);
        db.Dispose();
        await Assert.ThrowsAnyAsync<ObjectDisposedException>(() => watcher.WaitAsync(TimeSpan.FromSeconds(10)));
    }
}
