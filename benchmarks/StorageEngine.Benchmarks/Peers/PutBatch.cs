using StorageEngine.Peers;

namespace StorageEngine.Benchmarks.Peers;

/// <summary>
/// A reusable batch of puts for <see cref="IKeyValueStore.WriteBatch"/>: keys are written in place into one
/// buffer (16 bytes each, <see cref="BenchmarkData.WriteKey"/>), values are slices of a pool of 1,024
/// precomputed 100-byte values chosen by item number, so filling a batch costs a few nanoseconds per put and
/// allocates nothing inside the timed region.
/// </summary>
public sealed class PutBatch
{
    private const int ValuePoolSize = 1024;
    private readonly byte[] _keys;
    private readonly ReadOnlyMemory<byte>[] _values;
    private readonly KeyValue[] _puts;

    /// <summary>Creates a batch of up to <paramref name="capacity"/> puts with values of <paramref name="valueSize"/> bytes.</summary>
    public PutBatch(int capacity, int valueSize)
    {
        _keys = new byte[capacity * BenchmarkData.KeySize];
        var pool = new byte[ValuePoolSize * valueSize];
        _values = new ReadOnlyMemory<byte>[ValuePoolSize];
        for (int i = 0; i < ValuePoolSize; i++)
        {
            BenchmarkData.WriteValue(i, pool.AsSpan(i * valueSize, valueSize));
            _values[i] = pool.AsMemory(i * valueSize, valueSize);
        }
        _puts = new KeyValue[capacity];
    }

    /// <summary>Sets put <paramref name="index"/> to the key and a value of <paramref name="item"/>.</summary>
    public void Set(int index, long item)
    {
        var key = _keys.AsMemory(index * BenchmarkData.KeySize, BenchmarkData.KeySize);
        BenchmarkData.WriteKey(item, key.Span);
        _puts[index] = new KeyValue(key, _values[(int)(item & (ValuePoolSize - 1))]);
    }

    /// <summary>The first <paramref name="count"/> puts.</summary>
    public ReadOnlySpan<KeyValue> Puts(int count) => _puts.AsSpan(0, count);
}
