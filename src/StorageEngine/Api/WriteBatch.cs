namespace StorageEngine;

/// <summary>
/// Puts and deletes collected for one <see cref="Tree.Apply(WriteBatch)"/>: keys and values are copied in as they
/// are added, in any order, and applied in key order, the last write of a key winning. Reuse one batch for
/// many (<see cref="Clear"/>): its buffers grow to the largest batch and are kept. Not thread-safe.
/// </summary>
public sealed class WriteBatch
{
    private const int Deleted = -1;
    private byte[] _data;
    private int _used;
    // Per operation, in the order added: where its key and value start in _data, their lengths (value -1: a delete).
    private int[] _keyOffsets;
    private int[] _keyLengths;
    private int[] _valueLengths;

    /// <summary>A batch with room for <paramref name="operations"/> operations and <paramref name="bytes"/> bytes of keys and values before it grows.</summary>
    public WriteBatch(int operations = 16, int bytes = 1024)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(operations);
        ArgumentOutOfRangeException.ThrowIfNegative(bytes);
        _data = new byte[bytes];
        _keyOffsets = new int[operations];
        _keyLengths = new int[operations];
        _valueLengths = new int[operations];
    }

    /// <summary>Number of operations added since the batch was made or cleared.</summary>
    public int Count { get; private set; }

    /// <summary>Bytes of keys and values held.</summary>
    internal int ByteCount => _used;

    /// <summary>Adds a put of <paramref name="key"/> with <paramref name="value"/> (both copied).</summary>
    /// <exception cref="ArgumentException">The key is empty, or the batch would exceed 2 GB of keys and values.</exception>
    public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value) => Add(key, value, delete: false);

    /// <summary>Adds a put of an integer key (see <see cref="Int64Key"/>).</summary>
    public void Put(long key, ReadOnlySpan<byte> value)
    {
        Span<byte> k = stackalloc byte[Int64Key.Size];
        Int64Key.Write(k, key);
        Add(k, value, delete: false);
    }

    /// <summary>Adds a delete of <paramref name="key"/> (copied); deleting an absent key does nothing.</summary>
    public void Delete(ReadOnlySpan<byte> key) => Add(key, default, delete: true);

    /// <summary>Adds a delete of an integer key.</summary>
    public void Delete(long key)
    {
        Span<byte> k = stackalloc byte[Int64Key.Size];
        Int64Key.Write(k, key);
        Add(k, default, delete: true);
    }

    /// <summary>Forgets every operation; the buffers are kept.</summary>
    public void Clear()
    {
        Count = 0;
        _used = 0;
    }

    private void Add(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, bool delete)
    {
        if (key.IsEmpty) throw new ArgumentException("A key must be at least one byte long.", nameof(key));
        long needed = (long)_used + key.Length + value.Length;
        if (needed > Array.MaxLength)
            throw new ArgumentException($"The batch would hold {needed} bytes of keys and values; the most is {Array.MaxLength}. Apply it and start another.", nameof(value));
        if (needed > _data.Length) Array.Resize(ref _data, (int)Math.Min(Array.MaxLength, Math.Max(needed, 2L * _data.Length)));
        if (Count == _keyOffsets.Length)
        {
            int capacity = Math.Max(16, Count * 2);
            Array.Resize(ref _keyOffsets, capacity);
            Array.Resize(ref _keyLengths, capacity);
            Array.Resize(ref _valueLengths, capacity);
        }
        _keyOffsets[Count] = _used;
        _keyLengths[Count] = key.Length;
        _valueLengths[Count] = delete ? Deleted : value.Length;
        key.CopyTo(_data.AsSpan(_used));
        value.CopyTo(_data.AsSpan(_used + key.Length));
        _used += key.Length + value.Length;
        Count++;
    }

    // Scratch of Tree.Apply, kept between batches: the keys as slices of _data, their sort keys and order.
    internal ReadOnlyMemory<byte>[] Keys = [];
    internal ulong[] Prefixes = [];
    internal int[] Order = [];
    internal ulong[] PrefixScratch = [];
    internal int[] OrderScratch = [];

    /// <summary>Fills <see cref="Keys"/>, <see cref="Prefixes"/> and <see cref="Order"/> for the operations, in the order added.</summary>
    internal ReadOnlyMemory<byte>[] PrepareKeys()
    {
        if (Keys.Length < Count)
        {
            Keys = new ReadOnlyMemory<byte>[_keyOffsets.Length];
            Prefixes = new ulong[_keyOffsets.Length];
            Order = new int[_keyOffsets.Length];
            PrefixScratch = new ulong[_keyOffsets.Length];
            OrderScratch = new int[_keyOffsets.Length];
        }
        for (int i = 0; i < Count; i++)
        {
            var key = new ReadOnlyMemory<byte>(_data, _keyOffsets[i], _keyLengths[i]);
            Keys[i] = key;
            Prefixes[i] = BatchKeySort.Prefix(key.Span);
            Order[i] = i;
        }
        return Keys;
    }

    internal bool IsDelete(int operation) => _valueLengths[operation] == Deleted;

    internal int ValueLength(int operation) => _valueLengths[operation];

    internal ReadOnlySpan<byte> Value(int operation) =>
        _data.AsSpan(_keyOffsets[operation] + _keyLengths[operation], _valueLengths[operation]);
}
