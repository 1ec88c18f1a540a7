namespace DocumentStore.Tests;

public sealed class IndexQueryTests
{
    private static TestDatabase Seeded()
    {
        var db = TestDatabase.InMemory();
        db.Database.EnsureIndex("people", "age");
        db.Database.EnsureIndex("people", "city");
        db.Database.EnsureIndex("people", "tags");
        db.Database.EnsureIndex("people", "address.country");
        using var session = db.Database.BeginWrite();
        session.Store("people", "ada", new Person("Ada", 36, "London", ["math", "engines"], new Address("a", "UK")));
        session.Store("people", "alan", new Person("Alan", 41.5, "Manchester", ["math"], new Address("b", "UK")));
        session.Store("people", "grace", new Person("Grace", 85, "Arlington", ["navy", "cobol"], new Address("c", "US")));
        session.Store("people", "linus", new Person("Linus", -1, "Portland", []));
        session.Store("people", "zed", new Person("Zed", 36, "London\0Annex"));
        session.Commit();
        return db;
    }

    private static string[] Ids(DocumentSession session, string field, IndexRange range, bool descending = false) =>
        session.QueryAll("people", field, range, descending).Select(d => d.Id).ToArray();

    [Fact]
    public void Equality_finds_exactly_the_documents_with_that_value()
    {
        using var db = Seeded();
        using var s = db.Database.BeginRead();
        Assert.Equal(["ada"], Ids(s, "city", IndexRange.Equal("London")));
        Assert.Equal(["zed"], Ids(s, "city", IndexRange.Equal("London\0Annex")));
        Assert.Equal(["ada", "zed"], Ids(s, "age", IndexRange.Equal(36)));
        Assert.Empty(Ids(s, "city", IndexRange.Equal("Lond")));
        Assert.Empty(Ids(s, "age", IndexRange.Equal("36")));
    }

    [Fact]
    public void Ranges_on_numbers_are_numeric_with_an_exclusive_or_inclusive_end()
    {
        using var db = Seeded();
        using var s = db.Database.BeginRead();
        Assert.Equal(["linus", "ada", "zed", "alan"], Ids(s, "age", IndexRange.Between(-5, 41.5, maxInclusive: true)));
        Assert.Equal(["linus", "ada", "zed"], Ids(s, "age", IndexRange.Between(-5, 41.5)));
        Assert.Equal(["alan", "grace"], Ids(s, "age", IndexRange.AtLeast(40)));
        Assert.Equal(["linus"], Ids(s, "age", IndexRange.Below(0)));
        Assert.Equal(["grace", "alan", "zed", "ada", "linus"], Ids(s, "age", IndexRange.All, descending: true));
    }

    [Fact]
    public void Ranges_on_strings_are_ordinal_and_do_not_mix_types()
    {
        using var db = Seeded();
        using var s = db.Database.BeginRead();
        Assert.Equal(["grace", "ada", "zed", "alan"], Ids(s, "city", IndexRange.Between("A", "N")));
        Assert.Equal(["alan", "linus"], Ids(s, "city", IndexRange.AtLeast("M")));
        Assert.Empty(Ids(s, "age", IndexRange.AtLeast("")));
    }

    [Fact]
    public void Array_fields_index_every_element_and_nested_paths_reach_into_objects()
    {
        using var db = Seeded();
        using var s = db.Database.BeginRead();
        Assert.Equal(["ada", "alan"], Ids(s, "tags", IndexRange.Equal("math")));
        Assert.Equal(["grace"], Ids(s, "tags", IndexRange.Equal("cobol")));
        Assert.Equal(["ada", "alan"], Ids(s, "address.country", IndexRange.Equal("UK")));
    }

    [Fact]
    public void Replacing_and_deleting_documents_moves_and_removes_their_index_entries()
    {
        using var db = Seeded();
        using (var w = db.Database.BeginWrite())
        {
            w.Store("people", "ada", new Person("Ada", 37, "Paris", ["math"]));
            w.Delete("people", "grace");
            w.Commit();
        }
        using var s = db.Database.BeginRead();
        Assert.Equal(["zed"], Ids(s, "age", IndexRange.Equal(36)));
        Assert.Equal(["ada"], Ids(s, "age", IndexRange.Equal(37)));
        Assert.Empty(Ids(s, "city", IndexRange.Equal("London")));
        Assert.Empty(Ids(s, "tags", IndexRange.Equal("engines")));
        Assert.Empty(Ids(s, "tags", IndexRange.Equal("navy")));
        Assert.DoesNotContain("ada", Ids(s, "address.country", IndexRange.Equal("UK")));
        Assert.Equal(4, Ids(s, "age", IndexRange.All).Length);
    }

    [Fact]
    public void An_index_created_later_is_filled_from_the_stored_documents()
    {
        using var db = Seeded();
        Assert.True(db.Database.EnsureIndex("people", "name"));
        Assert.False(db.Database.EnsureIndex("people", "name"));
        using var s = db.Database.BeginRead();
        Assert.Equal(["ada", "alan", "grace", "linus", "zed"], Ids(s, "name", IndexRange.All));
    }

    [Fact]
    public async Task Ensuring_an_existing_index_does_not_wait_for_the_writer()
    {
        using var db = Seeded();
        using var writer = db.Database.BeginWrite();
        var ensure = Task.Run(() => db.Database.EnsureIndex("people", "age"));
        Assert.Same(ensure, await Task.WhenAny(ensure, Task.Delay(TimeSpan.FromSeconds(10))));
        Assert.False(await ensure);
        Assert.Throws<ArgumentException>(() => db.Database.EnsureIndex("people", ""));
    }

    [Fact]
    public void Querying_a_field_without_an_index_is_an_error()
    {
        using var db = Seeded();
        using var s = db.Database.BeginRead();
        var e = Assert.Throws<InvalidOperationException>(() => s.Query("people", "name", IndexRange.All));
        Assert.Contains("EnsureIndex", e.Message);
    }

    [Fact]
    public void A_document_whose_indexed_value_is_too_long_is_rejected_without_partial_changes()
    {
        using var db = Seeded();
        using var w = db.Database.BeginWrite();
        var tooLong = new string('x', db.Database.Environment.MaxKeySize);
        Assert.Throws<ArgumentException>(() => w.Store("people", "ada", new Person("Ada", 99, tooLong)));
        Assert.Equal(36, w.Get<Person>("people", "ada")!.Age);
        Assert.Equal(["ada", "zed"], Ids(w, "age", IndexRange.Equal(36)));
        Assert.Empty(Ids(w, "age", IndexRange.Equal(99)));
    }
}
