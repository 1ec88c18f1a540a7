using Microsoft.Data.Sqlite;
using SQLitePCL;

namespace StorageEngine.Peers;

/// <summary>
/// SQLite in WAL mode, one <c>WITHOUT ROWID</c> table of BLOB key and value, statements prepared once and
/// driven through SQLitePCL's raw API (no per-row managed allocations). Durable = synchronous=FULL,
/// ProcessCrash = synchronous=NORMAL, None = synchronous=OFF. Writes go through one connection under a
/// lock; reads take a connection from a pool (one per concurrent reader).
/// </summary>
public sealed class SqliteStore : IKeyValueStore
{
    private static readonly Lazy<string?> Initialized = new(static () =>
    {
        Batteries_V2.Init();
        return null;
    });

    private readonly SqliteConnection _writer;
    private readonly sqlite3_stmt _put;
    private readonly sqlite3_stmt _delete;
    private readonly Lock _writeLock = new();
    private readonly string _connectionString;
    private readonly System.Collections.Concurrent.ConcurrentBag<SqliteReader> _readers = [];
    private int _disposed;

    /// <summary>Opens or creates <c>kv.sqlite</c> in <paramref name="directory"/>.</summary>
    public SqliteStore(string directory, DurabilityTier tier)
    {
        _ = Initialized.Value;
        Tier = tier;
        string connectionString = new SqliteConnectionStringBuilder
        {
            DataSource = Path.Combine(directory, "kv.sqlite"),
            Pooling = false,
        }.ToString();
        _writer = new SqliteConnection(connectionString);
        _writer.Open();
        var db = _writer.Handle!;
        Exec(db, "PRAGMA journal_mode=WAL");
        Exec(db, tier switch
        {
            DurabilityTier.Durable => "PRAGMA synchronous=FULL",
            DurabilityTier.ProcessCrash => "PRAGMA synchronous=NORMAL",
            _ => "PRAGMA synchronous=OFF",
        });
        Exec(db, "CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID");
        _put = Prepare(db, "INSERT OR REPLACE INTO kv (k, v) VALUES (?1, ?2)");
        _delete = Prepare(db, "DELETE FROM kv WHERE k = ?1");
        _connectionString = connectionString;
    }

    /// <summary>Null when the bundled SQLite loads, else why not.</summary>
    public static string? Probe() => Initialized.Value;

    /// <summary>The SQLite library's version.</summary>
    public static string LibraryVersion
    {
        get
        {
            _ = Initialized.Value;
            return raw.sqlite3_libversion().utf8_to_string();
        }
    }

    /// <inheritdoc />
    public string EngineName => "sqlite";

    /// <inheritdoc />
    public DurabilityTier Tier { get; }

    /// <inheritdoc />
    public void WriteBatch(ReadOnlySpan<KeyValue> puts)
    {
        lock (_writeLock)
        {
            var db = _writer.Handle!;
            Exec(db, "BEGIN");
            try
            {
                foreach (ref readonly var put in puts)
                {
                    Check(db, raw.sqlite3_bind_blob(_put, 1, put.Key.Span));
                    Check(db, raw.sqlite3_bind_blob(_put, 2, put.Value.Span));
                    Step(db, _put);
                }
                Exec(db, "COMMIT");
            }
            catch
            {
                raw.sqlite3_reset(_put);
                Exec(db, "ROLLBACK");
                throw;
            }
        }
    }

    /// <inheritdoc />
    public void DeleteBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys)
    {
        lock (_writeLock)
        {
            var db = _writer.Handle!;
            Exec(db, "BEGIN");
            try
            {
                foreach (ref readonly var key in keys)
                {
                    Check(db, raw.sqlite3_bind_blob(_delete, 1, key.Span));
                    Step(db, _delete);
                }
                Exec(db, "COMMIT");
            }
            catch
            {
                raw.sqlite3_reset(_delete);
                Exec(db, "ROLLBACK");
                throw;
            }
        }
    }

    /// <inheritdoc />
    public int Get(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        var reader = Rent();
        try
        {
            return GetWith(reader, key, destination);
        }
        finally
        {
            _readers.Add(reader);
        }
    }

    // A pool rather than a thread-local: benchmark phases start new threads, and a connection per dead
    // thread would be opened inside the timed region and leak.
    private SqliteReader Rent() => _readers.TryTake(out var reader) ? reader : new SqliteReader(_connectionString);

    /// <inheritdoc />
    public int GetBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys, Span<byte> scratch)
    {
        var reader = Rent();
        Exec(reader.Db, "BEGIN");
        try
        {
            int found = 0;
            foreach (ref readonly var key in keys)
                if (GetWith(reader, key.Span, scratch) >= 0) found++;
            return found;
        }
        finally
        {
            Exec(reader.Db, "COMMIT");
            _readers.Add(reader);
        }
    }

    private static int GetWith(SqliteReader reader, ReadOnlySpan<byte> key, Span<byte> destination)
    {
        var stmt = reader.Get;
        try
        {
            Check(reader.Db, raw.sqlite3_bind_blob(stmt, 1, key));
            int rc = raw.sqlite3_step(stmt);
            if (rc == raw.SQLITE_DONE) return -1;
            if (rc != raw.SQLITE_ROW) Check(reader.Db, rc);
            return ValueReads.CopyOut(raw.sqlite3_column_blob(stmt, 0), destination);
        }
        finally
        {
            raw.sqlite3_reset(stmt);
        }
    }

    /// <inheritdoc />
    public int Scan(ReadOnlySpan<byte> start, int count, bool backward = false)
    {
        var reader = Rent();
        sqlite3_stmt stmt;
        if (backward && start.IsEmpty)
        {
            stmt = reader.Last;
            Check(reader.Db, raw.sqlite3_bind_int(stmt, 1, count));
        }
        else
        {
            stmt = backward ? reader.Backward : reader.Forward;
            Check(reader.Db, raw.sqlite3_bind_blob(stmt, 1, start));
            Check(reader.Db, raw.sqlite3_bind_int(stmt, 2, count));
        }
        try
        {
            int visited = 0;
            long bytes = 0;
            int rc;
            while ((rc = raw.sqlite3_step(stmt)) == raw.SQLITE_ROW)
            {
                bytes += ValueReads.Visit(raw.sqlite3_column_blob(stmt, 0), raw.sqlite3_column_blob(stmt, 1));
                visited++;
            }
            if (rc != raw.SQLITE_DONE) Check(reader.Db, rc);
            GC.KeepAlive(bytes);
            return visited;
        }
        finally
        {
            raw.sqlite3_reset(stmt);
            _readers.Add(reader);
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        while (_readers.TryTake(out var reader)) reader.Dispose();
        _put.Dispose();
        _delete.Dispose();
        _writer.Dispose();
    }

    internal static sqlite3_stmt Prepare(sqlite3 db, string sql)
    {
        Check(db, raw.sqlite3_prepare_v2(db, sql, out var stmt));
        return stmt;
    }

    private static void Exec(sqlite3 db, string sql) => Check(db, raw.sqlite3_exec(db, sql));

    private static void Step(sqlite3 db, sqlite3_stmt stmt)
    {
        int rc = raw.sqlite3_step(stmt);
        raw.sqlite3_reset(stmt);
        if (rc != raw.SQLITE_DONE) Check(db, rc);
    }

    private static void Check(sqlite3 db, int rc)
    {
        if (rc is raw.SQLITE_OK or raw.SQLITE_DONE or raw.SQLITE_ROW) return;
        throw new InvalidOperationException($"SQLite error {rc}: {raw.sqlite3_errmsg(db).utf8_to_string()}");
    }
}
