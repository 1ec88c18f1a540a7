using BenchmarkDotNet.Attributes;
using StorageEngine.Peers;

namespace StorageEngine.Benchmarks.Peers;

/// <summary>
/// One write transaction of <see cref="BatchSize"/> puts (16-byte keys, 100-byte values), committed at each
/// engine's "durable on commit" tier (<see cref="DurabilityTier.Durable"/>: the commit is on the device when
/// it returns): StorageEngine Safe mode (one O_DIRECT|O_DSYNC journal write per commit); LMDB default flags
/// (no MDB_NOSYNC/MDB_NOMETASYNC: data pages written and fdatasync'ed, then the meta page through its O_DSYNC
/// descriptor); RocksDB WriteOptions.sync = true (the WAL is fsync'ed before the write returns); SQLite WAL
/// mode with synchronous=FULL (the WAL is fsync'ed at every COMMIT). The store holds <see cref="PreloadCount"/>
/// entries before the first batch and grows as the benchmark runs.
/// </summary>
[Config(typeof(PeerBenchmarkConfig))]
[BenchmarkCategory("Peer", "PeerBatchWrites")]
public class PeerBatchWriteBenchmarks
{
    /// <summary>Entries put in the setup, ascending items 0 .. PreloadCount-1.</summary>
    public const long PreloadCount = 100_000;

    private string _directory = "";
    private IKeyValueStore _store = null!;
    private PutBatch _batch = null!;
    private Random _random = null!;
    private long _nextSequential;

    /// <summary>The engine under test.</summary>
    [ParamsSource(nameof(Engines))]
    public string Engine { get; set; } = "";

    /// <summary>The engines that run here, StorageEngine first.</summary>
    public static IEnumerable<string> Engines => PeerEngineSource.Available;

    /// <summary>Puts per transaction.</summary>
    [Params(100, 1_000)]
    public int BatchSize { get; set; }

    /// <summary>Sequential (appending) or random keys.</summary>
    [Params(KeyOrder.Sequential, KeyOrder.Random)]
    public KeyOrder Order { get; set; }

    /// <summary>Creates and preloads the store.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _directory = PeerData.NewDirectory("batch", Engine);
        _store = PeerEngineSource.OpenDurable(Engine, _directory);
        PeerData.Load(_store, 0, PreloadCount);
        _batch = new PutBatch(BatchSize, PeerData.ValueSize);
        _random = new Random(4242);
        _nextSequential = PreloadCount;
    }

    /// <summary>Closes the store and deletes its directory.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _store.Dispose();
        PeerData.DeleteDirectory(_directory);
    }

    /// <summary>One durable transaction of <see cref="BatchSize"/> puts (the figure is per transaction).</summary>
    [Benchmark]
    public void DurableBatch()
    {
        for (int i = 0; i < BatchSize; i++)
            _batch.Set(i, Order == KeyOrder.Sequential ? _nextSequential++ : PeerData.RandomItem(_random));
        _store.WriteBatch(_batch.Puts(BatchSize));
    }
}
