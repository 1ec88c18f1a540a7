using System.Text;
using System.Text.Json;
using StorageEngine;

namespace DocumentStore;

/// <summary>
/// The one write session of the database: stores and deletes documents, keeping every index of their
/// collection and the change feed in the same transaction, so that a reader sees all of a commit or none.
/// Changes are visible to this session at once and to others after <see cref="Commit"/>; disposing it
/// uncommitted discards them.
/// </summary>
public sealed class WriteSession : DocumentSession
{
    private readonly WriteTransaction _transaction;
    private readonly Dictionary<string, List<string>> _indexedFields = new(StringComparer.Ordinal);
    private long _nextSequence;

    internal WriteSession(DocumentDatabase database, WriteTransaction transaction) : base(database, transaction) =>
        _transaction = transaction;

    /// <summary>Stores (creates or replaces) a document serialized with the database's JSON options.</summary>
    public void Store<T>(string collection, string id, T document) =>
        StoreJson(collection, id, JsonSerializer.SerializeToUtf8Bytes(document, Database.JsonOptions));

    /// <summary>Stores (creates or replaces) a document given as JSON text.</summary>
    public void StoreJson(string collection, string id, string json) => StoreJson(collection, id, Encoding.UTF8.GetBytes(json));

    /// <summary>Stores (creates or replaces) a document given as UTF-8 JSON; it must be a JSON object.</summary>
    /// <exception cref="JsonException">The bytes are not JSON.</exception>
    /// <exception cref="ArgumentException">The JSON is not an object, or an indexed value is too long for a key.</exception>
    public void StoreJson(string collection, string id, ReadOnlyMemory<byte> utf8Json)
    {
        byte[] idBytes = DocumentDatabase.IdBytes(id);
        using var document = JsonDocument.Parse(utf8Json);
        if (document.RootElement.ValueKind != JsonValueKind.Object)
            throw new ArgumentException($"A document must be a JSON object, not {document.RootElement.ValueKind}.", nameof(utf8Json));
        var documents = _transaction.CreateTree(DocumentDatabase.DocumentsTree(collection));
        byte[]? previous = documents.Get(idBytes);
        using var old = previous is null ? null : JsonDocument.Parse(previous);
        UpdateIndexes(collection, idBytes, old?.RootElement, document.RootElement);
        documents.Put(idBytes, utf8Json.Span);
        AppendChange(collection, id, ChangeKind.Put);
    }

    /// <summary>Deletes a document and its index entries; false when there was none.</summary>
    public bool Delete(string collection, string id)
    {
        byte[] idBytes = DocumentDatabase.IdBytes(id);
        if (!_transaction.TryOpenTree(DocumentDatabase.DocumentsTree(collection), out var documents)) return false;
        byte[]? previous = documents.Get(idBytes);
        if (previous is null) return false;
        using (var old = JsonDocument.Parse(previous)) UpdateIndexes(collection, idBytes, old.RootElement, null);
        documents.Delete(idBytes);
        AppendChange(collection, id, ChangeKind.Delete);
        return true;
    }

    /// <summary>
    /// Creates an index on <paramref name="field"/> (a property name, or a dotted path into nested objects) and
    /// fills it from the documents already stored; false when it exists. Arrays of scalars index each element.
    /// </summary>
    public bool EnsureIndex(string collection, string field)
    {
        ArgumentException.ThrowIfNullOrEmpty(field);
        string name = DocumentDatabase.IndexTree(collection, field);
        if (_transaction.TryOpenTree(name, out _)) return false;
        var index = _transaction.CreateTree(name);
        _indexedFields.Remove(collection);
        if (!_transaction.TryOpenTree(DocumentDatabase.DocumentsTree(collection), out var documents)) return true;
        using var cursor = documents.CreateCursor();
        for (bool more = cursor.First(); more; more = cursor.Next())
        {
            using var document = JsonDocument.Parse(cursor.Value.ToArray());
            byte[] id = cursor.Key.ToArray();
            foreach (var value in IndexKeys.ExtractValues(document.RootElement, field)) index.Put(CheckedKey(field, value, id), id);
        }
        return true;
    }

    /// <summary>Deletes an index; false when there was none.</summary>
    public bool DropIndex(string collection, string field)
    {
        _indexedFields.Remove(collection);
        return _transaction.DeleteTree(DocumentDatabase.IndexTree(collection, field));
    }

    /// <summary>Makes every change of the session durable and visible at once, then ends the session.</summary>
    public void Commit()
    {
        _transaction.Commit();
        Database.OnCommitted();
    }

    private void UpdateIndexes(string collection, byte[] id, JsonElement? before, JsonElement? after)
    {
        // Work out and check every key before changing anything, so that a rejected document leaves the
        // session as it was.
        var plan = new List<(Tree Index, List<byte[]> Remove, List<byte[]> Add)>();
        foreach (string field in IndexedFields(collection))
        {
            var old = before is { } b ? IndexKeys.ExtractValues(b, field) : [];
            var now = after is { } a ? IndexKeys.ExtractValues(a, field) : [];
            var remove = old.Where(v => !now.Exists(n => n.AsSpan().SequenceEqual(v))).Select(v => IndexKeys.Key(v, id)).ToList();
            var add = now.Where(v => !old.Exists(o => o.AsSpan().SequenceEqual(v))).Select(v => CheckedKey(field, v, id)).ToList();
            if (remove.Count + add.Count > 0) plan.Add((_transaction.OpenTree(DocumentDatabase.IndexTree(collection, field)), remove, add));
        }
        foreach (var (index, remove, add) in plan)
        {
            foreach (var key in remove) index.Delete(key);
            foreach (var key in add) index.Put(key, id);
        }
    }

    private byte[] CheckedKey(string field, byte[] value, byte[] id)
    {
        var key = IndexKeys.Key(value, id);
        if (key.Length > Database.Environment.MaxKeySize)
            throw new ArgumentException($"The value of the indexed field '{field}' is too long: its index key would be {key.Length} bytes, the most is {Database.Environment.MaxKeySize}.");
        return key;
    }

    /// <summary>Indexed fields of the collection: the index trees are the index definitions.</summary>
    private List<string> IndexedFields(string collection)
    {
        if (_indexedFields.TryGetValue(collection, out var fields)) return fields;
        string prefix = DocumentDatabase.IndexTree(collection, "");
        fields = [.. _transaction.GetTreeNames().Where(n => n.StartsWith(prefix, StringComparison.Ordinal)).Select(n => n[prefix.Length..])];
        _indexedFields[collection] = fields;
        return fields;
    }

    private void AppendChange(string collection, string id, ChangeKind kind)
    {
        var feed = _transaction.CreateTree(DocumentDatabase.ChangesTree, TreeOptions.Int64Keys);
        if (_nextSequence == 0)
        {
            using var cursor = feed.CreateCursor();
            _nextSequence = cursor.Last() ? cursor.Int64Key + 1 : 1;
        }
        var change = new Change(_nextSequence, _transaction.TransactionId, collection, id, kind);
        feed.Put(_nextSequence++, JsonSerializer.SerializeToUtf8Bytes(change));
    }
}
