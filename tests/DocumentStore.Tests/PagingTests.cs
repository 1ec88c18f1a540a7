namespace DocumentStore.Tests;

public sealed class PagingTests
{
    private static TestDatabase WithNumbers(int count)
    {
        var db = TestDatabase.InMemory();
        db.Database.EnsureIndex("items", "rank");
        using var session = db.Database.BeginWrite();
        for (int i = 0; i < count; i++) session.StoreJson("items", $"item{i:D3}", $$"""{"rank": {{i % 10}}}""");
        session.Commit();
        return db;
    }

    [Fact]
    public void Listing_pages_through_a_collection_in_id_order_without_gaps_or_repeats()
    {
        using var db = WithNumbers(25);
        using var session = db.Database.BeginRead();
        var seen = new List<string>();
        string? token = null;
        int pages = 0;
        do
        {
            var page = session.List("items", pageSize: 10, continuationToken: token);
            seen.AddRange(page.Documents.Select(d => d.Id));
            token = page.ContinuationToken;
            pages++;
        }
        while (token is not null);

        Assert.Equal(3, pages);
        Assert.Equal(Enumerable.Range(0, 25).Select(i => $"item{i:D3}"), seen);
    }

    [Fact]
    public void Query_pages_follow_value_then_id_order_in_both_directions()
    {
        using var db = WithNumbers(30);
        using var session = db.Database.BeginRead();
        var expected = Enumerable.Range(0, 30).Where(i => i % 10 is >= 3 and < 7)
            .OrderBy(i => i % 10).ThenBy(i => i).Select(i => $"item{i:D3}").ToList();

        foreach (bool descending in new[] { false, true })
        {
            var seen = new List<string>();
            string? token = null;
            do
            {
                var page = session.Query("items", "rank", IndexRange.Between(3, 7), pageSize: 5, continuationToken: token, descending: descending);
                Assert.True(page.Documents.Count <= 5);
                seen.AddRange(page.Documents.Select(d => d.Id));
                token = page.ContinuationToken;
            }
            while (token is not null);
            Assert.Equal(descending ? Enumerable.Reverse(expected) : expected, seen);
        }
    }

    [Fact]
    public void A_page_that_ends_exactly_at_the_last_match_has_no_continuation()
    {
        using var db = WithNumbers(10);
        using var session = db.Database.BeginRead();
        Assert.Null(session.List("items", pageSize: 10).ContinuationToken);
        Assert.Null(session.List("nothing").ContinuationToken);
    }

    [Fact]
    public void A_continuation_token_resumes_after_its_document_even_when_that_document_was_deleted()
    {
        using var db = WithNumbers(6);
        string token;
        using (var session = db.Database.BeginRead()) token = session.List("items", pageSize: 2).ContinuationToken!;
        using (var w = db.Database.BeginWrite())
        {
            w.Delete("items", "item001");
            w.Commit();
        }
        using var read = db.Database.BeginRead();
        Assert.Equal(["item002", "item003", "item004", "item005"], read.List("items", 10, token).Documents.Select(d => d.Id));
    }
}
