using LiteDB;

namespace DocumentStore.Benchmarks;

/// <summary>
/// LiteDB 5 with its write-ahead log (the <c>-log.db</c> file beside the data file, always on in version 5),
/// direct connection, documents given as JSON text and parsed with LiteDB's own JSON reader.
/// </summary>
internal sealed class LiteDbDocuments(string directory) : IDocumentEngine
{
    private const string Collection = "docs";
    private LiteDatabase? _database;
    private ILiteCollection<BsonDocument>? _collection;

    private string FilePath => Path.Combine(directory, "documents.db");

    public string Name => "LiteDB " + typeof(LiteDatabase).Assembly.GetName().Version;

    public string Configuration => "Connection=Direct, write-ahead log (-log.db) on, default checkpoint (1000 pages)";

    private ILiteCollection<BsonDocument> Documents => _collection ?? throw new InvalidOperationException("Not open.");

    public void Open()
    {
        Directory.CreateDirectory(directory);
        _database = new LiteDatabase(new ConnectionString { Filename = FilePath, Connection = ConnectionType.Direct });
        _collection = _database.GetCollection(Collection);
        _collection.EnsureIndex("city");
        _collection.EnsureIndex("age");
    }

    /// <summary>LiteDB's create syncs nothing: its files, its directory and the directory's parent are synced here.</summary>
    public void MakeCreationDurable() => CreationSync.SyncCreated(directory);

    public void Close()
    {
        _database?.Dispose();
        _database = null;
        _collection = null;
    }

    public void Insert(IReadOnlyList<SampleDocument> documents)
    {
        var database = _database!;
        database.BeginTrans();
        foreach (var document in documents) Documents.Insert(ToBson(document));
        database.Commit();
    }

    public void Update(IReadOnlyList<SampleDocument> documents)
    {
        var database = _database!;
        database.BeginTrans();
        foreach (var document in documents) Documents.Update(ToBson(document));
        database.Commit();
    }

    public void Delete(IReadOnlyList<string> ids)
    {
        var database = _database!;
        database.BeginTrans();
        foreach (var id in ids) Documents.Delete(id);
        database.Commit();
    }

    public bool Get(string id) => Documents.FindById(id) is not null;

    public int Query(IndexQuery query, int pageSize, int pages)
    {
        var predicate = query.High is null
            ? LiteDB.Query.EQ(query.Field, Value(query.Low))
            : LiteDB.Query.Between(query.Field, Value(query.Low), Value(query.High));
        int read = 0;
        for (int page = 0; page < pages; page++)
        {
            int count = Documents.Find(predicate, page * pageSize, pageSize).Count();
            read += count;
            if (count < pageSize) break;
        }
        return read;
    }

    private static BsonValue Value(object value) => value switch
    {
        string text => new BsonValue(text),
        int number => new BsonValue(number),
        _ => throw new ArgumentException($"Unsupported index value {value}."),
    };

    private static BsonDocument ToBson(SampleDocument document)
    {
        var bson = LiteDB.JsonSerializer.Deserialize(document.Json).AsDocument;
        bson["_id"] = document.Id;
        return bson;
    }

    public long Count() => Documents.LongCount();

    public long FileBytes() => Directory.EnumerateFiles(directory).Sum(file => new FileInfo(file).Length);

    public long DataFileBytes() => new FileInfo(FilePath).Length;

    public void Dispose() => Close();
}
