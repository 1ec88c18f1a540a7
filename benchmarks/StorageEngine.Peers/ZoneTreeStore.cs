using ZoneTree;
using ZoneTree.Exceptions;
using ZoneTree.Options;
using ZoneTree.Serializers;
using ZoneTree.Transactional;

namespace StorageEngine.Peers;

/// <summary>
/// ZoneTree (pure C# LSM tree) opened transactional, so every batch is one MVCC transaction that commits all of
/// its writes or none, with byte keys ordered bytewise unsigned. Tiers, from ZoneTree 2.1's documentation and WAL
/// source: Durable = shared WAL and <c>CommitDurableAsync</c>, which syncs the WAL before the commit becomes
/// visible (concurrent committers share the sync); ProcessCrash = shared WAL and a plain commit, whose records
/// are written through to the operating system on the caller's thread but not synced (ZoneTree: "ordinary record
/// appends do not request a disk sync per write"); None = WAL disabled, data reaches disk only when the
/// maintainer moves segments there. ZoneTree keeps the keys and values it is given, so each put copies its key
/// and value into arrays of their own; reads look keys up through a per-thread buffer.
/// </summary>
public sealed class ZoneTreeStore : IKeyValueStore
{
    private const string Engine = "zonetree";

    [ThreadStatic] private static byte[]? t_keyBuffer;

    private readonly ITransactionalZoneTree<Memory<byte>, Memory<byte>> _tree;
    private readonly IMaintainer _maintainer;
    private int _disposed;

    /// <summary>Opens or creates the tree in <paramref name="directory"/>.</summary>
    public ZoneTreeStore(string directory, DurabilityTier tier)
    {
        Tier = tier;
        try
        {
            // Transactional factories promote Sync to the shared (single ordered) WAL themselves; asking for Shared
            // says what runs.
            var mode = tier == DurabilityTier.None ? WriteAheadLogMode.None : WriteAheadLogMode.Shared;
            _tree = new ZoneTreeFactory<Memory<byte>, Memory<byte>>()
                .SetDataDirectory(directory)
                .SetComparer(ZoneTreeBytewiseComparer.Instance)
                .SetKeySerializer(new ByteArraySerializer())
                .SetValueSerializer(new ByteArraySerializer())
                .ConfigureWriteAheadLogOptions(options => options.WriteAheadLogMode = mode)
                .OpenOrCreateTransactional();
        }
        catch (ZoneTreeException e)
        {
            throw new InvalidOperationException($"{Engine}: open of '{directory}' failed: {e.Message}", e);
        }
        _maintainer = _tree.CreateMaintainer();
    }

    /// <summary>The ZoneTree assembly that runs.</summary>
    public static string LibraryVersion => "ZoneTree " + typeof(ZoneTreeFactory<,>).Assembly.GetName().Version;

    /// <inheritdoc />
    public string EngineName => Engine;

    /// <inheritdoc />
    public DurabilityTier Tier { get; }

    /// <inheritdoc />
    public void WriteBatch(ReadOnlySpan<KeyValue> puts)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        // Optimistic MVCC: a batch that overlaps one committed after it began fails to commit and is redone,
        // as ZoneTree's own Execute helper does. Snapshot isolation: blind writes need no read-set validation.
        while (true)
        {
            using var transaction = _tree.BeginTransaction(TransactionIsolationLevel.Snapshot);
            try
            {
                foreach (ref readonly var put in puts)
                {
                    Memory<byte> key = put.Key.ToArray();
                    Memory<byte> value = put.Value.ToArray();
                    transaction.Upsert(in key, in value);
                }
                if (Commit(transaction)) return;
            }
            catch (ZoneTreeException e) when (e is not TransactionConflictException)
            {
                throw new InvalidOperationException($"{Engine}: {nameof(WriteBatch)} failed: {e.Message}", e);
            }
            catch (TransactionConflictException)
            {
                // Redone below with a fresh snapshot.
            }
        }
    }

    /// <inheritdoc />
    public void DeleteBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        while (true)
        {
            using var transaction = _tree.BeginTransaction(TransactionIsolationLevel.Snapshot);
            try
            {
                foreach (ref readonly var k in keys)
                {
                    Memory<byte> key = k.ToArray();
                    transaction.Delete(in key);
                }
                if (Commit(transaction)) return;
            }
            catch (ZoneTreeException e) when (e is not TransactionConflictException)
            {
                throw new InvalidOperationException($"{Engine}: {nameof(DeleteBatch)} failed: {e.Message}", e);
            }
            catch (TransactionConflictException)
            {
                // Redone below with a fresh snapshot.
            }
        }
    }

    private bool Commit(ITransaction<Memory<byte>, Memory<byte>> transaction) =>
        Tier == DurabilityTier.Durable
            ? transaction.TryCommitDurableAsync().GetAwaiter().GetResult()
            : transaction.TryCommit();

    /// <inheritdoc />
    public int Get(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        try
        {
            using var snapshot = _tree.BeginReadOnlyTransaction();
            return GetWith(snapshot, key, destination);
        }
        catch (ZoneTreeException e)
        {
            throw new InvalidOperationException($"{Engine}: {nameof(Get)} failed: {e.Message}", e);
        }
    }

    /// <inheritdoc />
    public int GetBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys, Span<byte> scratch)
    {
        try
        {
            using var snapshot = _tree.BeginReadOnlyTransaction();
            int found = 0;
            foreach (ref readonly var key in keys)
                if (GetWith(snapshot, key.Span, scratch) >= 0) found++;
            return found;
        }
        catch (ZoneTreeException e)
        {
            throw new InvalidOperationException($"{Engine}: {nameof(GetBatch)} failed: {e.Message}", e);
        }
    }

    private static int GetWith(IReadTransaction<Memory<byte>, Memory<byte>> snapshot, ReadOnlySpan<byte> key, Span<byte> destination)
    {
        var lookup = Lookup(key);
        return snapshot.TryGet(in lookup, out var value) ? ValueReads.CopyOut(value.Span, destination) : -1;
    }

    // A lookup key lives only for the call, so it can sit in a buffer reused by the thread.
    private static Memory<byte> Lookup(ReadOnlySpan<byte> key)
    {
        var buffer = t_keyBuffer;
        if (buffer is null || buffer.Length < key.Length) t_keyBuffer = buffer = new byte[Math.Max(key.Length, 64)];
        key.CopyTo(buffer);
        return buffer.AsMemory(0, key.Length);
    }

    /// <inheritdoc />
    public int Scan(ReadOnlySpan<byte> start, int count, bool backward = false)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        try
        {
            using var snapshot = _tree.BeginReadOnlyTransaction();
            using var iterator = backward ? snapshot.CreateReverseIterator() : snapshot.CreateIterator();
            if (start.IsEmpty)
            {
                iterator.SeekFirst();
            }
            else
            {
                // Forward: the first key >= start; reverse: the first key <= start, going down.
                var lookup = Lookup(start);
                iterator.Seek(in lookup);
            }
            int visited = 0;
            long bytes = 0;
            while (visited < count && iterator.Next())
            {
                bytes += ValueReads.Visit(iterator.CurrentKey.Span, iterator.CurrentValue.Span);
                visited++;
            }
            GC.KeepAlive(bytes);
            return visited;
        }
        catch (ZoneTreeException e)
        {
            throw new InvalidOperationException($"{Engine}: {nameof(Scan)} failed: {e.Message}", e);
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        // The maintainer first: disposing it waits for its merges, which must not run against a closed tree.
        _maintainer.Dispose();
        _tree.Dispose();
    }
}
