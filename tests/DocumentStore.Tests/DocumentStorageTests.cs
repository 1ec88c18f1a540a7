using System.Text.Json;

namespace DocumentStore.Tests;

public sealed class DocumentStorageTests
{
    [Fact]
    public void A_stored_document_reads_back_as_the_same_object()
    {
        using var db = TestDatabase.InMemory();
        var ada = new Person("Ada", 36, "London", ["math"], new Address("St James's Square", "UK"));
        db.Store("people", "p1", ada);

        using var session = db.Database.BeginRead();
        var read = session.Get<Person>("people", "p1");
        Assert.NotNull(read);
        Assert.Equal(ada with { Tags = null }, read with { Tags = null });
        Assert.Equal(["math"], read.Tags!);
        Assert.Null(session.Get("people", "p2"));
        Assert.Null(session.Get("nobody", "p1"));
    }

    [Fact]
    public void Documents_are_stored_as_json_with_web_naming()
    {
        using var db = TestDatabase.InMemory();
        db.Store("people", "p1", new Person("Ada", 36, "London"));

        using var session = db.Database.BeginRead();
        var json = session.Get("people", "p1")!.ToJsonElement();
        Assert.Equal("Ada", json.GetProperty("name").GetString());
        Assert.Equal(36, json.GetProperty("age").GetDouble());
    }

    [Fact]
    public void Storing_an_existing_id_replaces_the_document_and_deleting_removes_it()
    {
        using var db = TestDatabase.InMemory();
        db.Store("people", "p1", new Person("Ada", 36, "London"));
        db.Store("people", "p1", new Person("Ada", 37, "Paris"));
        using (var session = db.Database.BeginRead())
        {
            Assert.Equal(1, session.Count("people"));
            Assert.Equal("Paris", session.Get<Person>("people", "p1")!.City);
        }

        using (var session = db.Database.BeginWrite())
        {
            Assert.True(session.Delete("people", "p1"));
            Assert.False(session.Delete("people", "p1"));
            Assert.False(session.Delete("ghosts", "p1"));
            session.Commit();
        }
        using (var session = db.Database.BeginRead())
        {
            Assert.Equal(0, session.Count("people"));
            Assert.Null(session.Get("people", "p1"));
        }
    }

    [Fact]
    public void A_session_disposed_without_commit_leaves_documents_indexes_and_feed_untouched()
    {
        using var db = TestDatabase.InMemory();
        db.Database.EnsureIndex("people", "city");
        using (var session = db.Database.BeginWrite())
        {
            session.Store("people", "p1", new Person("Ada", 36, "London"));
            Assert.Single(session.QueryAll("people", "city", IndexRange.Equal("London")));
        }

        using var read = db.Database.BeginRead();
        Assert.Null(read.Get("people", "p1"));
        Assert.Empty(read.QueryAll("people", "city", IndexRange.All));
        Assert.Empty(read.GetChanges());
    }

    [Fact]
    public void Only_json_objects_are_accepted_as_documents()
    {
        using var db = TestDatabase.InMemory();
        using var session = db.Database.BeginWrite();
        Assert.Throws<ArgumentException>(() => session.StoreJson("people", "p1", "[1, 2]"));
        Assert.ThrowsAny<JsonException>(() => session.StoreJson("people", "p1", "{ not json"));
        Assert.Throws<ArgumentException>(() => session.StoreJson("a/b", "p1", "{}"));
        Assert.Throws<ArgumentException>(() => session.StoreJson("people", "", "{}"));
        Assert.Equal(0, session.Count("people"));
    }

    [Fact]
    public void Documents_indexes_and_feed_survive_closing_and_reopening_the_directory()
    {
        using var db = TestDatabase.OnDisk();
        db.Database.EnsureIndex("people", "age");
        db.Store("people", "p1", new Person("Ada", 36, "London"));

        var reopened = db.Reopen();
        using (var session = reopened.BeginWrite())
        {
            session.Store("people", "p2", new Person("Grace", 45, "Arlington"));
            session.Commit();
        }
        using var read = reopened.BeginRead();
        Assert.Equal(["p1", "p2"], read.QueryAll("people", "age", IndexRange.AtLeast(0)).Select(d => d.Id));
        Assert.Equal([1L, 2L], read.GetChanges().Select(c => c.Sequence));
    }
}
