using Microsoft.Data.Sqlite;
using SQLitePCL;

namespace StorageEngine.Peers;

/// <summary>A pooled read connection with its prepared statements (a SQLite connection serves one thread at a time).</summary>
internal sealed class SqliteReader : IDisposable
{
    private readonly SqliteConnection _connection;

    internal SqliteReader(string connectionString)
    {
        _connection = new SqliteConnection(connectionString);
        _connection.Open();
        var db = _connection.Handle!;
        Get = SqliteStore.Prepare(db, "SELECT v FROM kv WHERE k = ?1");
        Forward = SqliteStore.Prepare(db, "SELECT k, v FROM kv WHERE k >= ?1 ORDER BY k LIMIT ?2");
        Backward = SqliteStore.Prepare(db, "SELECT k, v FROM kv WHERE k <= ?1 ORDER BY k DESC LIMIT ?2");
        Last = SqliteStore.Prepare(db, "SELECT k, v FROM kv ORDER BY k DESC LIMIT ?1");
    }

    internal sqlite3 Db => _connection.Handle!;

    internal sqlite3_stmt Get { get; }

    internal sqlite3_stmt Forward { get; }

    internal sqlite3_stmt Backward { get; }

    internal sqlite3_stmt Last { get; }

    public void Dispose()
    {
        Get.Dispose();
        Forward.Dispose();
        Backward.Dispose();
        Last.Dispose();
        _connection.Dispose();
    }
}
