namespace StorageEngine.Peers;

/// <summary>Our engine: Durable = Safe, ProcessCrash = Lazy, None = InMemory. One tree holds the data.</summary>
public sealed class StorageEngineStore : IKeyValueStore, IPipelinedWrites
{
    private const string TreeName = "bench";
    private readonly StorageEnvironment _env;

    /// <summary>Opens or creates the environment in <paramref name="directory"/>.</summary>
    public StorageEngineStore(string directory, DurabilityTier tier)
    {
        Tier = tier;
        _env = StorageEnvironment.Open(new StorageEnvironmentOptions
        {
            Path = tier == DurabilityTier.None ? null : directory,
            Durability = tier switch
            {
                DurabilityTier.Durable => DurabilityMode.Safe,
                DurabilityTier.ProcessCrash => DurabilityMode.Lazy,
                _ => DurabilityMode.InMemory,
            },
        });
        using var tx = _env.BeginWrite();
        if (!tx.TryOpenTree(TreeName, out _)) tx.CreateTree(TreeName);
        tx.Commit();
    }

    /// <inheritdoc />
    public string EngineName => "storageengine";

    /// <inheritdoc />
    public DurabilityTier Tier { get; }

    /// <inheritdoc />
    public void WriteBatch(ReadOnlySpan<KeyValue> puts)
    {
        using var tx = BeginBatch(puts);
        tx.Commit();
    }

    /// <inheritdoc />
    public ValueTask WriteBatchAsync(ReadOnlySpan<KeyValue> puts)
    {
        using var tx = BeginBatch(puts);
        return tx.CommitAsync();
    }

    /// <summary>A write transaction holding the puts, for the caller to commit.</summary>
    private WriteTransaction BeginBatch(ReadOnlySpan<KeyValue> puts)
    {
        var tx = _env.BeginWrite();
        try
        {
            var tree = tx.OpenTree(TreeName);
            foreach (ref readonly var put in puts) tree.Put(put.Key.Span, put.Value.Span);
            return tx;
        }
        catch
        {
            tx.Dispose();
            throw;
        }
    }

    /// <inheritdoc />
    public void DeleteBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys)
    {
        using var tx = _env.BeginWrite();
        var tree = tx.OpenTree(TreeName);
        foreach (ref readonly var key in keys) tree.Delete(key.Span);
        tx.Commit();
    }

    /// <inheritdoc />
    public int Get(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        using var tx = _env.BeginRead();
        return tx.OpenTree(TreeName).TryGet(key, out var value) ? ValueReads.CopyOut(value, destination) : -1;
    }

    /// <inheritdoc />
    public int GetBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys, Span<byte> scratch)
    {
        using var tx = _env.BeginRead();
        var tree = tx.OpenTree(TreeName);
        int found = 0;
        foreach (ref readonly var key in keys)
        {
            if (!tree.TryGet(key.Span, out var value)) continue;
            ValueReads.CopyOut(value, scratch);
            found++;
        }
        return found;
    }

    /// <inheritdoc />
    public int Scan(ReadOnlySpan<byte> start, int count, bool backward = false)
    {
        using var tx = _env.BeginRead();
        using var cursor = tx.OpenTree(TreeName).CreateCursor();
        bool on = backward
            ? (start.IsEmpty ? cursor.Last() : cursor.SeekAtOrBefore(start))
            : (start.IsEmpty ? cursor.First() : cursor.Seek(start));
        int visited = 0;
        long bytes = 0;
        while (on && visited < count)
        {
            bytes += ValueReads.Visit(cursor.Key, cursor.Value);
            visited++;
            on = backward ? cursor.Previous() : cursor.Next();
        }
        GC.KeepAlive(bytes);
        return visited;
    }

    /// <inheritdoc />
    public void Dispose() => _env.Dispose();
}
