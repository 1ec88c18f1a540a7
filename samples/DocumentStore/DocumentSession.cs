using System.Buffers.Text;
using System.Text;
using System.Text.Json;
using StorageEngine;

namespace DocumentStore;

/// <summary>
/// Reads over one snapshot of the database: documents by id, ordered listings, index queries and the change
/// feed. A write session also sees its own uncommitted changes. Not thread-safe; open one per thread.
/// </summary>
public abstract class DocumentSession : IDisposable
{
    private protected DocumentSession(DocumentDatabase database, Transaction transaction)
    {
        Database = database;
        Transaction = transaction;
    }

    /// <summary>The database this session reads.</summary>
    public DocumentDatabase Database { get; }

    /// <summary>The engine transaction underneath.</summary>
    internal Transaction Transaction { get; }

    /// <summary>The engine transaction id of the snapshot this session reads.</summary>
    public long SnapshotId => Transaction.SnapshotId;

    /// <summary>The document, or null when the collection has none with that id.</summary>
    public Document? Get(string collection, string id)
    {
        if (!Transaction.TryOpenTree(DocumentDatabase.DocumentsTree(collection), out var documents)) return null;
        return documents.TryGet(DocumentDatabase.IdBytes(id), out var json) ? NewDocument(collection, id, json) : null;
    }

    /// <summary>The document deserialized as <typeparamref name="T"/>, or default when absent.</summary>
    public T? Get<T>(string collection, string id)
    {
        var document = Get(collection, id);
        return document is null ? default : document.As<T>();
    }

    /// <summary>Documents in the collection.</summary>
    public long Count(string collection) =>
        Transaction.TryOpenTree(DocumentDatabase.DocumentsTree(collection), out var documents) ? documents.Count : 0;

    /// <summary>One page of the collection in id order (ordinal, by UTF-8 bytes).</summary>
    public DocumentPage List(string collection, int pageSize = 100, string? continuationToken = null, bool descending = false)
    {
        if (!Transaction.TryOpenTree(DocumentDatabase.DocumentsTree(collection), out var documents)) return new DocumentPage([], null);
        var page = new List<Document>();
        var last = Scan(documents, default, pageSize, continuationToken, descending,
            cursor => page.Add(NewDocument(collection, Encoding.UTF8.GetString(cursor.Key), cursor.Value)));
        return new DocumentPage(page, last);
    }

    /// <summary>
    /// One page of the documents whose <paramref name="field"/> lies in <paramref name="range"/>, ordered by that
    /// field's value, then by id. A document with several values (an array) appears once per matching value.
    /// </summary>
    /// <exception cref="InvalidOperationException">The field has no index in this snapshot.</exception>
    public DocumentPage Query(string collection, string field, IndexRange range, int pageSize = 100, string? continuationToken = null, bool descending = false)
    {
        ArgumentNullException.ThrowIfNull(range);
        if (!Transaction.TryOpenTree(DocumentDatabase.IndexTree(collection, field), out var index))
            throw new InvalidOperationException($"The collection '{collection}' has no index on '{field}'; create it with EnsureIndex.");
        Transaction.TryOpenTree(DocumentDatabase.DocumentsTree(collection), out var documents);
        var page = new List<Document>();
        var last = Scan(index, new KeyRange(range.Start, range.End), pageSize, continuationToken, descending, cursor =>
        {
            // The index and the documents change in the same transactions, so the document is always there.
            if (documents is null || !documents.TryGet(cursor.Value, out var json))
                throw new InvalidDataException($"The index '{collection}.{field}' names a missing document '{Encoding.UTF8.GetString(cursor.Value)}'.");
            page.Add(NewDocument(collection, Encoding.UTF8.GetString(cursor.Value), json));
        });
        return new DocumentPage(page, last);
    }

    /// <summary>Every document that <see cref="Query"/> would return, page after page, in this snapshot.</summary>
    public IEnumerable<Document> QueryAll(string collection, string field, IndexRange range, bool descending = false)
    {
        string? token = null;
        do
        {
            var page = Query(collection, field, range, 256, token, descending);
            foreach (var document in page.Documents) yield return document;
            token = page.ContinuationToken;
        }
        while (token is not null);
    }

    /// <summary>Changes after <paramref name="afterSequence"/>, oldest first, at most <paramref name="max"/>.</summary>
    public IReadOnlyList<Change> GetChanges(long afterSequence = 0, int max = 1000)
    {
        var changes = new List<Change>();
        if (!Transaction.TryOpenTree(DocumentDatabase.ChangesTree, out var feed)) return changes;
        using var cursor = feed.CreateCursor();
        for (bool more = cursor.Seek(afterSequence + 1); more && changes.Count < max; more = cursor.Next())
            changes.Add(JsonSerializer.Deserialize<Change>(cursor.Value)!);
        return changes;
    }

    /// <summary>Sequence number of the newest change, 0 when there is none.</summary>
    public long LastChangeSequence
    {
        get
        {
            if (!Transaction.TryOpenTree(DocumentDatabase.ChangesTree, out var feed)) return 0;
            using var cursor = feed.CreateCursor();
            return cursor.Last() ? cursor.Int64Key : 0;
        }
    }

    private Document NewDocument(string collection, string id, ReadOnlySpan<byte> json) =>
        new(collection, id, json.ToArray(), Database.JsonOptions);

    /// <summary>Visits up to <paramref name="pageSize"/> entries after the token; returns the next token.</summary>
    private static string? Scan(Tree tree, KeyRange range, int pageSize, string? continuationToken, bool descending, Action<Cursor> visit)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(pageSize, 1);
        using var cursor = tree.CreateCursor(range);
        bool more;
        if (continuationToken is null) more = descending ? cursor.Last() : cursor.First();
        else
        {
            byte[] after = Base64Url.DecodeFromChars(continuationToken);
            more = descending ? cursor.SeekAtOrBefore(after) : cursor.Seek(after);
            if (more && cursor.Key.SequenceEqual(after)) more = descending ? cursor.Previous() : cursor.Next();
        }
        byte[]? last = null;
        for (int n = 0; more && n < pageSize; n++)
        {
            visit(cursor);
            last = cursor.Key.ToArray();
            more = descending ? cursor.Previous() : cursor.Next();
        }
        return more ? Base64Url.EncodeToString(last!) : null;
    }

    /// <summary>Ends the session; a write session not committed discards its changes.</summary>
    public void Dispose()
    {
        Transaction.Dispose();
        GC.SuppressFinalize(this);
    }
}
