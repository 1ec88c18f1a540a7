namespace StorageEngine.Peers;

using static RocksDbNative;

/// <summary>
/// RocksDB with default options except no compression and background threads = cores. Durable = WAL with
/// sync on every write, ProcessCrash = WAL without sync, None = WAL disabled.
/// </summary>
public sealed unsafe class RocksDbStore : IKeyValueStore
{
    private readonly IntPtr _db;
    private readonly IntPtr _options;
    private readonly IntPtr _writeOptions;
    private readonly IntPtr _readOptions;
    private int _disposed;

    /// <summary>Opens or creates the database in <paramref name="directory"/>.</summary>
    public RocksDbStore(string directory, DurabilityTier tier)
    {
        Tier = tier;
        _options = rocksdb_options_create();
        rocksdb_options_set_create_if_missing(_options, 1);
        rocksdb_options_set_compression(_options, 0);
        rocksdb_options_increase_parallelism(_options, Environment.ProcessorCount);
        _db = rocksdb_open(_options, directory, out var error);
        if (error != IntPtr.Zero) rocksdb_options_destroy(_options);
        Check(error, nameof(rocksdb_open));
        _writeOptions = rocksdb_writeoptions_create();
        rocksdb_writeoptions_set_sync(_writeOptions, tier == DurabilityTier.Durable ? (byte)1 : (byte)0);
        if (tier == DurabilityTier.None) rocksdb_writeoptions_disable_WAL(_writeOptions, 1);
        _readOptions = rocksdb_readoptions_create();
    }

    /// <inheritdoc />
    public string EngineName => "rocksdb";

    /// <inheritdoc />
    public DurabilityTier Tier { get; }

    /// <inheritdoc />
    public void WriteBatch(ReadOnlySpan<KeyValue> puts)
    {
        var batch = rocksdb_writebatch_create();
        try
        {
            foreach (ref readonly var put in puts)
            {
                fixed (byte* k = put.Key.Span)
                fixed (byte* v = put.Value.Span)
                    rocksdb_writebatch_put(batch, k, (nuint)put.Key.Length, v, (nuint)put.Value.Length);
            }
            rocksdb_write(_db, _writeOptions, batch, out var error);
            Check(error, nameof(rocksdb_write));
        }
        finally
        {
            rocksdb_writebatch_destroy(batch);
        }
    }

    /// <inheritdoc />
    public void DeleteBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys)
    {
        var batch = rocksdb_writebatch_create();
        try
        {
            foreach (ref readonly var key in keys)
            {
                fixed (byte* k = key.Span)
                    rocksdb_writebatch_delete(batch, k, (nuint)key.Length);
            }
            rocksdb_write(_db, _writeOptions, batch, out var error);
            Check(error, nameof(rocksdb_write));
        }
        finally
        {
            rocksdb_writebatch_destroy(batch);
        }
    }

    /// <inheritdoc />
    public int Get(ReadOnlySpan<byte> key, Span<byte> destination) => GetWith(_readOptions, key, destination);

    /// <inheritdoc />
    public int GetBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys, Span<byte> scratch)
    {
        var snapshot = rocksdb_create_snapshot(_db);
        var options = rocksdb_readoptions_create();
        try
        {
            rocksdb_readoptions_set_snapshot(options, snapshot);
            int found = 0;
            foreach (ref readonly var key in keys)
                if (GetWith(options, key.Span, scratch) >= 0) found++;
            return found;
        }
        finally
        {
            rocksdb_readoptions_destroy(options);
            rocksdb_release_snapshot(_db, snapshot);
        }
    }

    private int GetWith(IntPtr options, ReadOnlySpan<byte> key, Span<byte> destination)
    {
        IntPtr slice;
        fixed (byte* k = key)
        {
            slice = rocksdb_get_pinned(_db, options, k, (nuint)key.Length, out var error);
            Check(error, nameof(rocksdb_get_pinned));
        }
        if (slice == IntPtr.Zero) return -1;
        try
        {
            var value = rocksdb_pinnableslice_value(slice, out var length);
            var span = new ReadOnlySpan<byte>(value, checked((int)length));
            span[..Math.Min(span.Length, destination.Length)].CopyTo(destination);
            return span.Length;
        }
        finally
        {
            rocksdb_pinnableslice_destroy(slice);
        }
    }

    /// <inheritdoc />
    public int Scan(ReadOnlySpan<byte> start, int count, bool backward = false)
    {
        var iterator = rocksdb_create_iterator(_db, _readOptions);
        try
        {
            fixed (byte* s = start)
            {
                if (start.IsEmpty)
                {
                    if (backward) rocksdb_iter_seek_to_last(iterator);
                    else rocksdb_iter_seek_to_first(iterator);
                }
                else if (backward) rocksdb_iter_seek_for_prev(iterator, s, (nuint)start.Length);
                else rocksdb_iter_seek(iterator, s, (nuint)start.Length);
            }
            int visited = 0;
            long bytes = 0;
            while (visited < count && rocksdb_iter_valid(iterator) != 0)
            {
                _ = rocksdb_iter_key(iterator, out var keyLength);
                var value = rocksdb_iter_value(iterator, out var valueLength);
                bytes += (long)keyLength + (long)valueLength + (valueLength > 0 ? value[0] : 0);
                visited++;
                if (backward) rocksdb_iter_prev(iterator);
                else rocksdb_iter_next(iterator);
            }
            rocksdb_iter_get_error(iterator, out var error);
            Check(error, "rocksdb_iter");
            GC.KeepAlive(bytes);
            return visited;
        }
        finally
        {
            rocksdb_iter_destroy(iterator);
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        rocksdb_readoptions_destroy(_readOptions);
        rocksdb_writeoptions_destroy(_writeOptions);
        rocksdb_close(_db);
        rocksdb_options_destroy(_options);
    }
}
