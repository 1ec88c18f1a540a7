using StorageEngine;

namespace DocumentStore.Benchmarks;

/// <summary>samples/DocumentStore on the engine in <see cref="DurabilityMode.Safe"/> mode: a commit is durable when it returns.</summary>
internal sealed class StorageEngineDocuments(string directory) : IDocumentEngine
{
    private const string Collection = "docs";
    private DocumentDatabase? _database;

    public string Name => "StorageEngine (samples/DocumentStore)";

    public string Configuration => "DurabilityMode.Safe (O_DIRECT|O_DSYNC journal write per commit), 4 KiB pages, change feed on";

    private DocumentDatabase Database => _database ?? throw new InvalidOperationException("Not open.");

    public void Open()
    {
        var environment = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = directory, Durability = DurabilityMode.Safe });
        _database = new DocumentDatabase(environment, ownsEnvironment: true);
        _database.EnsureIndex(Collection, "city");
        _database.EnsureIndex(Collection, "age");
    }

    /// <summary>Nothing: a <see cref="DurabilityMode.Safe"/> create syncs its files, directory and the directory's parent before it returns.</summary>
    public void MakeCreationDurable()
    {
    }

    public void Close()
    {
        _database?.Dispose();
        _database = null;
    }

    public void Insert(IReadOnlyList<SampleDocument> documents) => Update(documents);

    public void Update(IReadOnlyList<SampleDocument> documents)
    {
        using var session = Database.BeginWrite();
        foreach (var document in documents) session.StoreJson(Collection, document.Id, document.Json);
        session.Commit();
    }

    public void Delete(IReadOnlyList<string> ids)
    {
        using var session = Database.BeginWrite();
        foreach (var id in ids) session.Delete(Collection, id);
        session.Commit();
    }

    public bool Get(string id)
    {
        using var session = Database.BeginRead();
        return session.Get(Collection, id) is not null;
    }

    public int Query(IndexQuery query, int pageSize, int pages)
    {
        var range = query.High is null
            ? IndexRange.Equal(Value(query.Low))
            : IndexRange.Between(Value(query.Low), Value(query.High), maxInclusive: true);
        using var session = Database.BeginRead();
        int read = 0;
        string? token = null;
        for (int page = 0; page < pages; page++)
        {
            var result = session.Query(Collection, query.Field, range, pageSize, token);
            read += result.Documents.Count;
            token = result.ContinuationToken;
            if (token is null) break;
        }
        return read;
    }

    private static IndexValue Value(object value) => value switch
    {
        string text => text,
        int number => (long)number,
        _ => throw new ArgumentException($"Unsupported index value {value}."),
    };

    public long Count()
    {
        using var session = Database.BeginRead();
        return session.Count(Collection);
    }

    public long FileBytes() => Directory.EnumerateFiles(directory).Sum(file => new FileInfo(file).Length);

    public long DataFileBytes() => new FileInfo(Path.Combine(directory, "data.sedb")).Length;

    public void Dispose() => Close();
}
