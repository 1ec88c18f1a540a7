namespace StorageEngine;

/// <summary>
/// What a batch lookup (<see cref="Tree.GetMany(ReadOnlySpan{long}, BatchLookupResults)"/>) found, in the order of
/// the keys asked for: whether each key is present and its value. Values point into the engine's pages (no copy)
/// and are valid as long as a value from <see cref="Tree.TryGet(ReadOnlySpan{byte}, out ReadOnlySpan{byte})"/> is:
/// until the transaction ends, and in a write transaction until its next change; reading them after that
/// throws. Reuse one instance for many batches: its buffers grow to the largest batch and are kept, so a
/// lookup of a batch no larger than an earlier one allocates nothing. Not thread-safe.
/// </summary>
public sealed unsafe class BatchLookupResults
{
    private Transaction? _transaction;
    private BTrees.BTree? _tree;
    private long _stamp;
    // Per key, in the caller's order: the value's first byte and length (-1 when the key is absent).
    private nint[] _values = [];
    private int[] _lengths = [];

    /// <summary>Results with room for <paramref name="capacity"/> keys before they grow.</summary>
    public BatchLookupResults(int capacity = 0)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(capacity);
        Grow(capacity);
    }

    /// <summary>
    /// Most threads a batch lookup in a read transaction may use (default: every core). A batch is split into
    /// slices of at least 16K keys; 1 keeps every lookup on the calling thread.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is below 1.</exception>
    public int MaxParallelism
    {
        get => _maxParallelism;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            _maxParallelism = value;
        }
    }

    private int _maxParallelism = System.Environment.ProcessorCount;

    /// <summary>Number of keys of the last batch.</summary>
    public int Count { get; private set; }

    /// <summary>Number of keys of the last batch that were found.</summary>
    public int FoundCount { get; internal set; }

    /// <summary>True when key <paramref name="index"/> of the batch was found.</summary>
    public bool IsFound(int index)
    {
        ThrowIfStale();
        return _lengths[CheckIndex(index)] >= 0;
    }

    /// <summary>The value of key <paramref name="index"/>, or false when the key was absent.</summary>
    public bool TryGetValue(int index, out ReadOnlySpan<byte> value)
    {
        ThrowIfStale();
        int length = _lengths[CheckIndex(index)];
        value = length < 0 ? default : new ReadOnlySpan<byte>((byte*)_values[index], length);
        return length >= 0;
    }

    /// <summary>The value of key <paramref name="index"/>; empty when the key was absent (see <see cref="IsFound"/>).</summary>
    public ReadOnlySpan<byte> this[int index] => TryGetValue(index, out var value) ? value : default;

    // Scratch of the lookup itself, kept between batches: sort keys (8-byte prefixes) and the caller's positions.
    internal ulong[] Prefixes = [];
    internal int[] Order = [];
    internal ReadOnlyMemory<byte>[] Keys = [];
    internal ulong[] PrefixScratch = [];
    internal int[] OrderScratch = [];

    /// <summary>Starts a batch of <paramref name="count"/> keys read through <paramref name="tree"/>.</summary>
    internal void Begin(Transaction transaction, BTrees.BTree tree, int count, bool variableKeys)
    {
        _transaction = null;
        Grow(count);
        if (variableKeys && Keys.Length < count) Keys = new ReadOnlyMemory<byte>[Prefixes.Length];
        Count = count;
        FoundCount = 0;
        _tree = tree;
        _stamp = tree.WriterChangeStamp;
        _transaction = transaction;
    }

    /// <summary>Stores what was found for the key the caller passed at <paramref name="position"/>.</summary>
    internal void Set(int position, bool found, ReadOnlySpan<byte> value)
    {
        if (!found)
        {
            _lengths[position] = -1;
            return;
        }
        fixed (byte* v = value) _values[position] = (nint)v;
        _lengths[position] = value.Length;
    }

    /// <summary>Drops the keys of the batch: they belong to the caller.</summary>
    internal void ReleaseKeys(int count) => Array.Clear(Keys, 0, Math.Min(count, Keys.Length));

    private void Grow(int count)
    {
        if (Prefixes.Length >= count) return;
        int capacity = Math.Max(count, Math.Min(Array.MaxLength, Prefixes.Length * 2));
        Prefixes = new ulong[capacity];
        Order = new int[capacity];
        PrefixScratch = new ulong[capacity];
        OrderScratch = new int[capacity];
        _values = new nint[capacity];
        _lengths = new int[capacity];
        if (Keys.Length > 0) Keys = new ReadOnlyMemory<byte>[capacity];
    }

    private int CheckIndex(int index)
    {
        if ((uint)index >= (uint)Count)
            throw new ArgumentOutOfRangeException(nameof(index), index, $"The batch had {Count} keys.");
        return index;
    }

    private void ThrowIfStale()
    {
        var transaction = _transaction ?? throw new InvalidOperationException("No batch was looked up into these results yet.");
        transaction.ThrowIfInactive();
        if (_tree!.WriterChangeStamp != _stamp)
            throw new InvalidOperationException("The write transaction changed a tree after this batch was looked up; its values may have moved. Look the batch up again.");
    }
}
