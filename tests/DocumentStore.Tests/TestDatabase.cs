using StorageEngine;

namespace DocumentStore.Tests;

/// <summary>A database in memory, or in a temporary directory deleted on dispose.</summary>
public sealed class TestDatabase : IDisposable
{
    private readonly string? _directory;

    private TestDatabase(string? directory)
    {
        _directory = directory;
        Database = directory is null ? new DocumentDatabase(StorageEnvironment.CreateInMemory(), ownsEnvironment: true) : DocumentDatabase.Open(directory);
    }

    public DocumentDatabase Database { get; private set; }

    public static TestDatabase InMemory() => new(null);

    public static TestDatabase OnDisk() =>
        new(Path.Combine(Path.GetTempPath(), "docstore-tests-" + Guid.NewGuid().ToString("N")));

    /// <summary>Closes the database and opens its directory again.</summary>
    public DocumentDatabase Reopen()
    {
        Database.Dispose();
        Database = DocumentDatabase.Open(_directory ?? throw new InvalidOperationException("An in-memory database cannot be reopened."));
        return Database;
    }

    public void Store(string collection, string id, object document)
    {
        using var session = Database.BeginWrite();
        session.Store(collection, id, document);
        session.Commit();
    }

    public void Dispose()
    {
        Database.Dispose();
        if (_directory is not null && Directory.Exists(_directory)) Directory.Delete(_directory, recursive: true);
    }
}
