using StorageEngine.Peers;

namespace StorageEngine.Workloads;

/// <summary>One thread's reusable buffers for a batch of keys and puts (no allocation per batch).</summary>
internal sealed class BatchBuffer
{
    private readonly byte[] _keys;
    private readonly KeyValue[] _puts;
    private readonly ReadOnlyMemory<byte>[] _keyList;

    internal BatchBuffer(int capacity, int keySize)
    {
        KeySize = keySize;
        _keys = new byte[capacity * keySize];
        _puts = new KeyValue[capacity];
        _keyList = new ReadOnlyMemory<byte>[capacity];
        for (int i = 0; i < capacity; i++) _keyList[i] = _keys.AsMemory(i * keySize, keySize);
    }

    internal int KeySize { get; }

    /// <summary>The slot for key <paramref name="j"/>, to be written by a key generator.</summary>
    internal Span<byte> Key(int j) => _keys.AsSpan(j * KeySize, KeySize);

    /// <summary>Pairs key <paramref name="j"/> with the pool value of <paramref name="valueIndex"/>.</summary>
    internal void SetValue(int j, long valueIndex, int valueSize) => _puts[j] = new KeyValue(_keyList[j], ValuePool.Value(valueIndex, valueSize));

    internal ReadOnlySpan<KeyValue> Puts(int count) => _puts.AsSpan(0, count);

    internal ReadOnlySpan<ReadOnlyMemory<byte>> KeyList(int count) => _keyList.AsSpan(0, count);
}
