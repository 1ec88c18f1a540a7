using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Engines;

namespace StorageEngine.Benchmarks;

/// <summary>
/// 1M puts of new keys in random order into a tree of 8-byte integer keys: a loop of
/// <see cref="Tree.Put(long, ReadOnlySpan{byte})"/> (the baseline) against filling a <see cref="WriteBatch"/> and
/// applying it, in one run. Each invocation is one write transaction, aborted afterwards so that the next one
/// starts from the same tree of $STORAGEENGINE_BATCH_PUT_TREE_KEYS keys (default 1M).
/// </summary>
[SimpleJob(RunStrategy.Monitoring, launchCount: 1, warmupCount: 1, iterationCount: 5)]
[MemoryDiagnoser]
public class BatchPutBenchmarks
{
    public const int PutKeys = 1_000_000;
    public const int ValueSize = 16;

    private string _directory = "";
    private StorageEnvironment _environment = null!;
    private WriteTransaction? _transaction;
    private Tree _tree = null!;
    private long[] _keys = [];
    private readonly WriteBatch _batch = new(PutKeys, PutKeys * (8 + ValueSize));
    private readonly byte[] _value = new byte[ValueSize];

    /// <summary>Keys in the tree before the puts: $STORAGEENGINE_BATCH_PUT_TREE_KEYS, default 1M.</summary>
    public static long TreeKeys =>
        long.TryParse(Environment.GetEnvironmentVariable("STORAGEENGINE_BATCH_PUT_TREE_KEYS"), out long keys) && keys > 0 ? keys : 1_000_000;

    [GlobalSetup]
    public void Setup()
    {
        (_directory, _environment) = BatchData.OpenIntegerTree("batch-put", TreeKeys, ValueSize);
        // New keys: odd numbers spread over the tree's range, in random order.
        var random = new Random(54321);
        _keys = new long[PutKeys];
        for (int i = 0; i < PutKeys; i++) _keys[i] = 2 * random.NextInt64(TreeKeys) + 1;
        new Random(1).NextBytes(_value);
    }

    [IterationSetup]
    public void Begin()
    {
        _transaction = _environment.BeginWrite();
        _tree = _transaction.OpenTree(BatchData.TreeName);
    }

    [IterationCleanup]
    public void Abort() => _transaction?.Dispose();

    [GlobalCleanup]
    public void Cleanup()
    {
        _environment.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    /// <summary>One Put per key, in random order.</summary>
    [Benchmark(Baseline = true)]
    public long PutLoop()
    {
        foreach (long key in _keys) _tree.Put(key, _value);
        return _tree.Count;
    }

    /// <summary>The keys added to a write batch, then applied (the batch is filled inside the measurement).</summary>
    [Benchmark]
    public long WriteBatchApply()
    {
        _batch.Clear();
        foreach (long key in _keys) _batch.Put(key, _value);
        _tree.Apply(_batch);
        return _tree.Count;
    }
}
