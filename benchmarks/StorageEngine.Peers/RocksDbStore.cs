using System.Collections.Concurrent;
using RocksDbSharp;

namespace StorageEngine.Peers;

// Inside the namespace: StorageEngine.WriteBatch (the engine's batch of puts and deletes) would win over a using outside it.
using WriteBatch = RocksDbSharp.WriteBatch;

/// <summary>
/// RocksDB through the <c>RocksDB</c> NuGet package (RocksDbSharp and its bundled librocksdb), default options
/// except no compression and background threads = cores. Durable = WAL synced on every write, ProcessCrash = WAL
/// written but not synced, None = WAL disabled. Point reads go through pinned slices of the C API and scans read
/// the iterator's key and value in place, so no managed array is allocated per key. In a process with a
/// <see cref="MemoryLimit"/>, its memtables and block cache are sized to the limit.
/// </summary>
public sealed unsafe class RocksDbStore : IKeyValueStore
{
    private const string Engine = "rocksdb";

    private static readonly Lazy<string?> Loaded = new(static () =>
    {
        // Touching the binding's native table loads librocksdb; a missing or unloadable library surfaces here.
        _ = Native.Instance;
        return null;
    });

    private readonly RocksDb _db;
    private readonly WriteOptions _writeOptions;
    private readonly ReadOptions _readOptions;

    // Writes may come from several threads: each takes a batch of its own from the pool, so concurrent writers
    // still meet in RocksDB's write group instead of queueing on a lock, and no native batch is created per call.
    private readonly ConcurrentBag<WriteBatch> _batches = [];
    private int _disposed;

    /// <summary>Opens or creates the database in <paramref name="directory"/>.</summary>
    public RocksDbStore(string directory, DurabilityTier tier)
    {
        Tier = tier;
        try
        {
            var options = new DbOptions()
                .SetCreateIfMissing(true)
                .SetCompression(Compression.No)
                .IncreaseParallelism(Environment.ProcessorCount);
            if (MemoryLimit.Bytes is { } limit)
            {
                // Two memtables of an eighth of the limit between them, and a block cache of an eighth (MemoryLimit).
                options.SetWriteBufferSize((ulong)MemoryLimit.Share(limit, 16, 1L << 20, 64L << 20));
                options.SetBlockBasedTableFactory(new BlockBasedTableOptions()
                    .SetBlockCache(Cache.CreateLru((ulong)MemoryLimit.Share(limit, 8, 1L << 20, 32L << 20))));
            }
            _db = RocksDb.Open(options, directory);
        }
        catch (Exception e) when (e is RocksDbSharpException or NativeImport.NativeLoadException)
        {
            throw new InvalidOperationException($"{Engine}: open of '{directory}' failed: {e.Message}", e);
        }
        _writeOptions = new WriteOptions().SetSync(tier == DurabilityTier.Durable);
        if (tier == DurabilityTier.None) _writeOptions.DisableWal(1);
        _readOptions = new ReadOptions();
    }

    /// <summary>Null when the bundled librocksdb loads, else why not.</summary>
    public static string? Probe()
    {
        try
        {
            return Loaded.Value;
        }
        catch (Exception e) when (e is NativeImport.NativeLoadException or TypeInitializationException)
        {
            return $"{Engine}: the RocksDB package's native library does not load here: {e.GetBaseException().Message}";
        }
    }

    /// <summary>The binding and native library that run (the package bundles librocksdb, versioned with it).</summary>
    public static string LibraryVersion =>
        "RocksDB package " + (typeof(RocksDb).Assembly.GetName().Version?.ToString() ?? "?") + " (RocksDbSharp, bundled librocksdb)";

    /// <inheritdoc />
    public string EngineName => Engine;

    /// <inheritdoc />
    public DurabilityTier Tier { get; }

    /// <inheritdoc />
    public void WriteBatch(ReadOnlySpan<KeyValue> puts)
    {
        var batch = RentBatch();
        try
        {
            foreach (ref readonly var put in puts)
                batch.Put(put.Key.Span, put.Value.Span);
            Write(batch, nameof(WriteBatch));
        }
        finally
        {
            ReturnBatch(batch);
        }
    }

    /// <inheritdoc />
    public void DeleteBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys)
    {
        var batch = RentBatch();
        try
        {
            foreach (ref readonly var key in keys)
                batch.Delete(key.Span);
            Write(batch, nameof(DeleteBatch));
        }
        finally
        {
            ReturnBatch(batch);
        }
    }

    private WriteBatch RentBatch()
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        return _batches.TryTake(out var batch) ? batch : new WriteBatch();
    }

    private void ReturnBatch(WriteBatch batch)
    {
        batch.Clear();
        _batches.Add(batch);
    }

    private void Write(WriteBatch batch, string call)
    {
        try
        {
            _db.Write(batch, _writeOptions);
        }
        catch (RocksDbSharpException e)
        {
            throw new InvalidOperationException($"{Engine}: {call} failed: {e.Message}", e);
        }
    }

    /// <inheritdoc />
    public int Get(ReadOnlySpan<byte> key, Span<byte> destination) => GetWith(_readOptions.Handle, key, destination, nameof(Get));

    /// <inheritdoc />
    public int GetBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys, Span<byte> scratch)
    {
        // Straight through the C API: the binding's Snapshot and ReadOptions wrappers would put two finalizable
        // objects on the heap per batch.
        var native = Native.Instance;
        var snapshot = native.rocksdb_create_snapshot(_db.Handle);
        var options = native.rocksdb_readoptions_create();
        try
        {
            native.rocksdb_readoptions_set_snapshot(options, snapshot);
            int found = 0;
            foreach (ref readonly var key in keys)
                if (GetWith(options, key.Span, scratch, nameof(GetBatch)) >= 0) found++;
            return found;
        }
        finally
        {
            native.rocksdb_readoptions_destroy(options);
            native.rocksdb_release_snapshot(_db.Handle, snapshot);
        }
    }

    private int GetWith(IntPtr options, ReadOnlySpan<byte> key, Span<byte> destination, string call)
    {
        var native = Native.Instance;
        IntPtr slice, error;
        fixed (byte* k = key)
            slice = native.rocksdb_get_pinned(_db.Handle, options, k, (UIntPtr)key.Length, out error);
        if (error != IntPtr.Zero) throw Failure(call, error);
        if (slice == IntPtr.Zero) return -1;
        try
        {
            var value = native.rocksdb_pinnableslice_value(slice, out var length);
            return ValueReads.CopyOut(new ReadOnlySpan<byte>((void*)value, checked((int)length)), destination);
        }
        finally
        {
            native.rocksdb_pinnableslice_destroy(slice);
        }
    }

    /// <inheritdoc />
    public int Scan(ReadOnlySpan<byte> start, int count, bool backward = false)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        using var iterator = _db.NewIterator(readOptions: _readOptions);
        if (start.IsEmpty)
        {
            if (backward) iterator.SeekToLast();
            else iterator.SeekToFirst();
        }
        else if (backward) iterator.SeekForPrev(start);
        else iterator.Seek(start);
        int visited = 0;
        long bytes = 0;
        while (visited < count && iterator.Valid())
        {
            bytes += ValueReads.Visit(iterator.GetKeySpan(), iterator.GetValueSpan());
            visited++;
            if (backward) iterator.Prev();
            else iterator.Next();
        }
        Native.Instance.rocksdb_iter_get_error(iterator.Handle, out var error);
        if (error != IntPtr.Zero) throw Failure(nameof(Scan), error);
        GC.KeepAlive(bytes);
        return visited;
    }

    private static InvalidOperationException Failure(string call, IntPtr error)
    {
        // RocksDbException reads the message out of the native error string and frees it.
        var inner = new RocksDbException(error);
        return new InvalidOperationException($"{Engine}: {call} failed: {inner.Message}", inner);
    }

    /// <inheritdoc />
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        _db.Dispose();
        while (_batches.TryTake(out var batch)) batch.Dispose();
    }
}
