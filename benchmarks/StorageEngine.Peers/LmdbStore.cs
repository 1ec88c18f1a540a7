using LightningDB;

namespace StorageEngine.Peers;

/// <summary>
/// LMDB through LightningDB, the binding .NET applications use (it ships its own liblmdb). Durable syncs on every
/// commit (LMDB's default), ProcessCrash adds <see cref="EnvironmentOpenFlags.NoSync"/>. Reads use LMDB's fast
/// path for short read transactions: each thread keeps one read-only transaction, renewed for every read and
/// reset after, so it keeps its reader slot; beginning a transaction per read takes the reader table's lock to
/// find one (with NoThreadLocalStorage on every begin), a lock two reading threads contend for. In a process with a
/// <see cref="MemoryLimit"/> it also opens with NoReadAhead (MDB_NORDAHEAD).
/// </summary>
public sealed class LmdbStore : IKeyValueStore
{
    private const long MapSize = 64L << 30;
    private readonly LightningEnvironment _env;
    private readonly LightningDatabase _db;
    // One reset read transaction per thread that has read; all of them, also those of threads that have ended,
    // are disposed before the environment closes.
    private readonly ThreadLocal<LightningTransaction?> _threadReader = new();
    private readonly System.Collections.Concurrent.ConcurrentBag<LightningTransaction> _readers = [];
    private int _disposed;

    /// <summary>Opens or creates the environment in <paramref name="directory"/> (map size 64 GiB, sparse).</summary>
    public LmdbStore(string directory, DurabilityTier tier)
    {
        if (tier == DurabilityTier.None) throw new NotSupportedException("LMDB has no in-memory tier.");
        Tier = tier;
        // LightningDB's finalizer throws for an environment that was not disposed, so the library must load before one is made.
        if (Probe() is { } reason) throw new EngineUnavailableException(reason);
        _env = new LightningEnvironment(directory, new EnvironmentConfiguration { MapSize = MapSize, MaxReaders = 256 });
        try
        {
            var flags = EnvironmentOpenFlags.NoThreadLocalStorage
                | (tier == DurabilityTier.ProcessCrash ? EnvironmentOpenFlags.NoSync : EnvironmentOpenFlags.None)
                | (MemoryLimit.Bytes is null ? EnvironmentOpenFlags.None : EnvironmentOpenFlags.NoReadAhead);
            _env.Open(flags);
            using var txn = _env.BeginTransaction();
            _db = txn.OpenDatabase(configuration: new DatabaseConfiguration { Flags = DatabaseOpenFlags.Create });
            Check(txn.Commit(), "mdb_txn_commit");
        }
        catch
        {
            _env.Dispose();
            throw;
        }
    }

    /// <inheritdoc />
    public string EngineName => "lmdb";

    /// <inheritdoc />
    public DurabilityTier Tier { get; }

    /// <summary>The binding's version and the LMDB library it calls (valid once <see cref="Probe"/> returned null).</summary>
    public static string LibraryVersion => $"LightningDB {typeof(LightningEnvironment).Assembly.GetName().Version}, {LmdbLibrary.Description}";

    /// <summary>Null when an LMDB library for LightningDB loads here, else why not.</summary>
    public static string? Probe() => LmdbLibrary.Probe();

    /// <inheritdoc />
    public void WriteBatch(ReadOnlySpan<KeyValue> puts)
    {
        using var txn = _env.BeginTransaction();
        foreach (ref readonly var put in puts)
            Check(txn.Put(_db, put.Key.Span, put.Value.Span), "mdb_put");
        Check(txn.Commit(), "mdb_txn_commit");
    }

    /// <inheritdoc />
    public void DeleteBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys)
    {
        using var txn = _env.BeginTransaction();
        foreach (ref readonly var key in keys)
        {
            var rc = txn.Delete(_db, key.Span);
            if (rc != MDBResultCode.NotFound) Check(rc, "mdb_del");
        }
        Check(txn.Commit(), "mdb_txn_commit");
    }

    /// <inheritdoc />
    public int Get(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        var txn = BeginRead();
        try
        {
            return GetIn(txn, key, destination);
        }
        finally
        {
            txn.Reset();
        }
    }

    /// <inheritdoc />
    public int GetBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys, Span<byte> scratch)
    {
        var txn = BeginRead();
        try
        {
            int found = 0;
            foreach (ref readonly var key in keys)
                if (GetIn(txn, key.Span, scratch) >= 0) found++;
            return found;
        }
        finally
        {
            txn.Reset();
        }
    }

    /// <inheritdoc />
    public int Scan(ReadOnlySpan<byte> start, int count, bool backward = false)
    {
        var txn = BeginRead();
        try
        {
            using var cursor = txn.CreateCursor(_db);
            (MDBResultCode rc, MDBValue key, MDBValue value) entry;
            if (start.IsEmpty) entry = backward ? cursor.Last() : cursor.First();
            else
            {
                var rc = cursor.SetRange(start);
                entry = rc == MDBResultCode.Success ? cursor.GetCurrent() : (rc, default, default);
                if (backward)
                {
                    // SetRange lands on the first key >= start; step back unless it is start itself.
                    if (entry.rc == MDBResultCode.NotFound) entry = cursor.Last();
                    else if (entry.rc == MDBResultCode.Success && !entry.key.AsSpan().SequenceEqual(start)) entry = cursor.Previous();
                }
            }
            int visited = 0;
            long bytes = 0;
            while (entry.rc == MDBResultCode.Success && visited < count)
            {
                bytes += ValueReads.Visit(entry.key.AsSpan(), entry.value.AsSpan());
                visited++;
                entry = backward ? cursor.Previous() : cursor.Next();
            }
            if (entry.rc != MDBResultCode.Success && entry.rc != MDBResultCode.NotFound) Check(entry.rc, "mdb_cursor_get");
            GC.KeepAlive(bytes);
            return visited;
        }
        finally
        {
            txn.Reset();
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        foreach (var txn in _readers) txn.Dispose();
        _threadReader.Dispose();
        _db.Dispose();
        _env.Dispose();
    }

    /// <summary>This thread's read transaction, renewed on the newest snapshot; reset it when done.</summary>
    private LightningTransaction BeginRead()
    {
        var txn = _threadReader.Value;
        if (txn is not null)
        {
            Check(txn.Renew(), "mdb_txn_renew");
            return txn;
        }
        txn = _env.BeginTransaction(TransactionBeginFlags.ReadOnly);
        _readers.Add(txn);
        _threadReader.Value = txn;
        return txn;
    }

    private int GetIn(LightningTransaction txn, ReadOnlySpan<byte> key, Span<byte> destination)
    {
        var (rc, _, value) = txn.Get(_db, key);
        if (rc == MDBResultCode.NotFound) return -1;
        Check(rc, "mdb_get");
        return ValueReads.CopyOut(value.AsSpan(), destination);
    }

    private static void Check(MDBResultCode rc, string call)
    {
        if (rc != MDBResultCode.Success) throw new InvalidOperationException($"LMDB {call} failed: {rc}");
    }
}
