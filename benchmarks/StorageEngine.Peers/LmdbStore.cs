namespace StorageEngine.Peers;

using static LmdbNative;

/// <summary>
/// LMDB with its defaults: Durable syncs on every commit (the default flags), ProcessCrash adds MDB_NOSYNC.
/// Reads use LMDB's fast path for short read transactions: each thread keeps one read-only transaction and
/// renews it for every read and resets it after (<c>mdb_txn_renew</c> / <c>mdb_txn_reset</c>). The handle then
/// keeps its reader slot, where beginning a transaction per read takes the reader table's lock to find one
/// (with MDB_NOTLS on every begin), a lock two reading threads contend for.
/// </summary>
public sealed unsafe class LmdbStore : IKeyValueStore
{
    private readonly IntPtr _env;
    private readonly uint _dbi;
    private const long MapSize = 64L << 30;
    private int _disposed;
    // One reset read transaction per thread that has read; all of them, also those of threads that have ended,
    // are aborted before the environment closes.
    private readonly ThreadLocal<IntPtr> _threadReader = new();
    private readonly System.Collections.Concurrent.ConcurrentBag<IntPtr> _readers = new();

    /// <summary>Opens or creates the environment in <paramref name="directory"/> (map size 64 GiB, sparse).</summary>
    public LmdbStore(string directory, DurabilityTier tier)
    {
        if (tier == DurabilityTier.None) throw new NotSupportedException("LMDB has no in-memory tier.");
        Tier = tier;
        Check(mdb_env_create(out _env), nameof(mdb_env_create));
        try
        {
            Check(mdb_env_set_mapsize(_env, unchecked((nuint)MapSize)), nameof(mdb_env_set_mapsize));
            Check(mdb_env_set_maxreaders(_env, 256), nameof(mdb_env_set_maxreaders));
            uint flags = MDB_NOTLS | (tier == DurabilityTier.ProcessCrash ? MDB_NOSYNC : 0);
            Check(mdb_env_open(_env, directory, flags, 0b110_100_100), nameof(mdb_env_open));
            Check(mdb_txn_begin(_env, IntPtr.Zero, 0, out var txn), nameof(mdb_txn_begin));
            int rc = mdb_dbi_open(txn, null, MDB_CREATE, out _dbi);
            if (rc != 0) mdb_txn_abort(txn);
            Check(rc, nameof(mdb_dbi_open));
            Check(mdb_txn_commit(txn), nameof(mdb_txn_commit));
        }
        catch
        {
            mdb_env_close(_env);
            throw;
        }
    }

    /// <inheritdoc />
    public string EngineName => "lmdb";

    /// <inheritdoc />
    public DurabilityTier Tier { get; }

    /// <summary>The library's version string.</summary>
    public static string LibraryVersion => Version();

    /// <inheritdoc />
    public void WriteBatch(ReadOnlySpan<KeyValue> puts)
    {
        Check(mdb_txn_begin(_env, IntPtr.Zero, 0, out var txn), nameof(mdb_txn_begin));
        try
        {
            foreach (ref readonly var put in puts)
            {
                fixed (byte* k = put.Key.Span)
                fixed (byte* v = put.Value.Span)
                {
                    var key = new MDB_val { mv_size = (nuint)put.Key.Length, mv_data = k };
                    var value = new MDB_val { mv_size = (nuint)put.Value.Length, mv_data = v };
                    Check(mdb_put(txn, _dbi, &key, &value, 0), nameof(mdb_put));
                }
            }
        }
        catch
        {
            mdb_txn_abort(txn);
            throw;
        }
        Check(mdb_txn_commit(txn), nameof(mdb_txn_commit));
    }

    /// <inheritdoc />
    public void DeleteBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys)
    {
        Check(mdb_txn_begin(_env, IntPtr.Zero, 0, out var txn), nameof(mdb_txn_begin));
        try
        {
            foreach (ref readonly var k in keys)
            {
                fixed (byte* p = k.Span)
                {
                    var key = new MDB_val { mv_size = (nuint)k.Length, mv_data = p };
                    int rc = mdb_del(txn, _dbi, &key, null);
                    if (rc != MDB_NOTFOUND) Check(rc, nameof(mdb_del));
                }
            }
        }
        catch
        {
            mdb_txn_abort(txn);
            throw;
        }
        Check(mdb_txn_commit(txn), nameof(mdb_txn_commit));
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
            mdb_txn_reset(txn);
        }
    }

    /// <summary>This thread's read transaction, renewed on the newest snapshot; reset it when done.</summary>
    private IntPtr BeginRead()
    {
        var txn = _threadReader.Value;
        if (txn != IntPtr.Zero)
        {
            Check(mdb_txn_renew(txn), nameof(mdb_txn_renew));
            return txn;
        }
        Check(mdb_txn_begin(_env, IntPtr.Zero, MDB_RDONLY, out txn), nameof(mdb_txn_begin));
        _readers.Add(txn);
        _threadReader.Value = txn;
        return txn;
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
            mdb_txn_reset(txn);
        }
    }

    private int GetIn(IntPtr txn, ReadOnlySpan<byte> key, Span<byte> destination)
    {
        fixed (byte* k = key)
        {
            var mkey = new MDB_val { mv_size = (nuint)key.Length, mv_data = k };
            MDB_val value;
            int rc = mdb_get(txn, _dbi, &mkey, &value);
            if (rc == MDB_NOTFOUND) return -1;
            Check(rc, nameof(mdb_get));
            var span = value.Span;
            span[..Math.Min(span.Length, destination.Length)].CopyTo(destination);
            return span.Length;
        }
    }

    /// <inheritdoc />
    public int Scan(ReadOnlySpan<byte> start, int count, bool backward = false)
    {
        var txn = BeginRead();
        IntPtr cursor = IntPtr.Zero;
        try
        {
            Check(mdb_cursor_open(txn, _dbi, out cursor), nameof(mdb_cursor_open));
            fixed (byte* s = start)
            {
                var key = new MDB_val { mv_size = (nuint)start.Length, mv_data = s };
                MDB_val value;
                int rc;
                if (start.IsEmpty) rc = mdb_cursor_get(cursor, &key, &value, backward ? MDB_LAST : MDB_FIRST);
                else
                {
                    rc = mdb_cursor_get(cursor, &key, &value, MDB_SET_RANGE);
                    if (backward)
                    {
                        // SET_RANGE gives the first key >= start; step back unless it is start itself.
                        if (rc == MDB_NOTFOUND) rc = mdb_cursor_get(cursor, &key, &value, MDB_LAST);
                        else if (rc == 0 && !key.Span.SequenceEqual(start)) rc = mdb_cursor_get(cursor, &key, &value, MDB_PREV);
                    }
                }
                int visited = 0;
                long bytes = 0;
                while (rc == 0 && visited < count)
                {
                    bytes += (long)key.mv_size + (long)value.mv_size + (value.mv_size > 0 ? value.mv_data[0] : 0);
                    visited++;
                    rc = mdb_cursor_get(cursor, &key, &value, backward ? MDB_PREV : MDB_NEXT);
                }
                if (rc != 0 && rc != MDB_NOTFOUND) Check(rc, nameof(mdb_cursor_get));
                GC.KeepAlive(bytes);
                return visited;
            }
        }
        finally
        {
            if (cursor != IntPtr.Zero) mdb_cursor_close(cursor);
            mdb_txn_reset(txn);
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        foreach (var txn in _readers) mdb_txn_abort(txn);
        _threadReader.Dispose();
        mdb_env_close(_env);
    }
}
