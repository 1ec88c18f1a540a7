using BenchmarkDotNet.Attributes;
using StorageEngine.Peers;

namespace StorageEngine.Benchmarks.Peers;

/// <summary>
/// One put per transaction, committed durably (<see cref="DurabilityTier.Durable"/>, the sync settings listed on
/// <see cref="PeerBatchWriteBenchmarks"/>): the latency of the smallest durable commit, which the device's
/// synced-write latency bounds from below. The key is new and at a random place in a store of
/// <see cref="PreloadCount"/> entries (16-byte keys, 100-byte values).
/// </summary>
[Config(typeof(PeerBenchmarkConfig))]
[BenchmarkCategory("Peer", "PeerDurableCommit")]
public class PeerDurableCommitBenchmarks
{
    /// <summary>Entries put in the setup.</summary>
    public const long PreloadCount = 100_000;

    private string _directory = "";
    private IKeyValueStore _store = null!;
    private readonly PutBatch _batch = new(1, PeerData.ValueSize);
    private readonly Random _random = new(777);

    /// <summary>The engine under test.</summary>
    [ParamsSource(nameof(Engines))]
    public string Engine { get; set; } = "";

    /// <summary>The engines that run here, StorageEngine first.</summary>
    public static IEnumerable<string> Engines => PeerEngineSource.Available;

    /// <summary>Creates and preloads the store.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _directory = PeerData.NewDirectory("commit", Engine);
        _store = PeerEngineSource.OpenDurable(Engine, _directory);
        PeerData.Load(_store, 0, PreloadCount);
    }

    /// <summary>Closes the store and deletes its directory.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _store.Dispose();
        PeerData.DeleteDirectory(_directory);
    }

    /// <summary>Begin, one put of a new random key, durable commit.</summary>
    [Benchmark]
    public void SinglePutCommit()
    {
        _batch.Set(0, PeerData.RandomItem(_random));
        _store.WriteBatch(_batch.Puts(1));
    }
}
