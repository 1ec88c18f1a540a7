using BenchmarkDotNet.Attributes;

namespace StorageEngine.Benchmarks;

/// <summary>
/// Batch lookups against a loop of <see cref="Tree.TryGet(long, out ReadOnlySpan{byte})"/> (the baseline), in one
/// run: 1M random keys (three quarters present) in a tree of 8-byte integer keys with 16-byte values, on disk,
/// read through one read transaction. The tree holds $STORAGEENGINE_BATCH_TREE_KEYS keys (default 10M, about
/// 450 MB; 1000000 for a quick run). Batch figures: all cores and one core.
/// </summary>
[MemoryDiagnoser]
public class BatchLookupBenchmarks
{
    public const int BatchKeys = 1_000_000;
    public const int ValueSize = 16;

    private string _directory = "";
    private StorageEnvironment _environment = null!;
    private ReadTransaction _transaction = null!;
    private Tree _tree = null!;
    private long[] _keys = [];
    private readonly BatchLookupResults _results = new(BatchKeys);

    /// <summary>Keys in the tree: $STORAGEENGINE_BATCH_TREE_KEYS, default 10M.</summary>
    public static long TreeKeys =>
        long.TryParse(Environment.GetEnvironmentVariable("STORAGEENGINE_BATCH_TREE_KEYS"), out long keys) && keys > 0 ? keys : 10_000_000;

    [GlobalSetup]
    public void Setup()
    {
        (_directory, _environment) = BatchData.OpenIntegerTree("batch-lookup", TreeKeys, ValueSize);
        _transaction = _environment.BeginRead();
        _tree = _transaction.OpenTree(BatchData.TreeName);
        // Keys of the tree are the even numbers below 2 * TreeKeys; a quarter of the probes are odd (absent).
        var random = new Random(12345);
        _keys = new long[BatchKeys];
        for (int i = 0; i < BatchKeys; i++) _keys[i] = 2 * random.NextInt64(TreeKeys) + (i % 4 == 3 ? 1 : 0);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _transaction.Dispose();
        _environment.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    /// <summary>One TryGet per key, in the batch's (random) order.</summary>
    [Benchmark(Baseline = true)]
    public long TryGetLoop()
    {
        long sum = 0;
        foreach (long key in _keys)
            if (_tree.TryGet(key, out var value)) sum += value[0];
        return sum;
    }

    /// <summary>One GetMany of the batch on every core.</summary>
    [Benchmark]
    public long GetManyAllCores()
    {
        _results.MaxParallelism = Environment.ProcessorCount;
        return Sum();
    }

    /// <summary>One GetMany of the batch on the calling thread only.</summary>
    [Benchmark]
    public long GetManyOneCore()
    {
        _results.MaxParallelism = 1;
        return Sum();
    }

    private long Sum()
    {
        _tree.GetMany(_keys, _results);
        long sum = 0;
        for (int i = 0; i < _keys.Length; i++)
            if (_results.TryGetValue(i, out var value)) sum += value[0];
        return sum;
    }
}
