using BenchmarkDotNet.Attributes;
using StorageEngine.Peers;

namespace StorageEngine.Benchmarks.Peers;

/// <summary>
/// Reads from a loaded store, every engine in the same run, in-process (embedded, no server), through the
/// <see cref="IKeyValueStore"/> adapters of <c>StorageEngine.Peers</c>. The setup puts
/// <see cref="EntryCount"/> entries (16-byte ascending keys, 100-byte values) into a fresh directory in durable
/// transactions of 10,000, closes the store and opens it again (Durable tier), so the reads go through a freshly
/// opened engine in the state its own defaults leave after that history (RocksDB: no manual compaction). The
/// files stay in the page cache; the benchmarks measure the engines' lookup paths, not the disk.
/// </summary>
[Config(typeof(PeerBenchmarkConfig))]
[BenchmarkCategory("Peer", "PeerReads")]
public class PeerReadBenchmarks
{
    /// <summary>Entries in the store.</summary>
    public const long EntryCount = 1_000_000;

    /// <summary>Lookups per invocation of the point-read benchmarks (the figures are per lookup).</summary>
    public const int LookupsPerInvocation = 1_000;

    private const int KeyPool = 1 << 16;

    private string _directory = "";
    private IKeyValueStore _store = null!;
    private ReadOnlyMemory<byte>[] _lookupKeys = [];
    private ReadOnlyMemory<byte>[] _scanStarts = [];
    private readonly byte[] _scratch = new byte[PeerData.ValueSize];
    private int _nextLookup;
    private int _nextScan;

    /// <summary>The engine under test.</summary>
    [ParamsSource(nameof(Engines))]
    public string Engine { get; set; } = "";

    /// <summary>The engines that run here, StorageEngine first.</summary>
    public static IEnumerable<string> Engines => PeerEngineSource.Available;

    /// <summary>Loads the store, reopens it, and draws the keys.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _directory = PeerData.NewDirectory("reads", Engine);
        using (var store = PeerEngineSource.OpenDurable(Engine, _directory)) PeerData.Load(store, 0, EntryCount);
        _store = PeerEngineSource.OpenDurable(Engine, _directory);
        _lookupKeys = PeerData.RandomExistingKeys(KeyPool, EntryCount, seed: 12345);
        _scanStarts = PeerData.RandomExistingKeys(1024, EntryCount - 1_000, seed: 54321);
        Console.WriteLine($"// {Engine}: {EntryCount:N0} entries in {_directory}");
    }

    /// <summary>Closes the store and deletes its directory.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _store.Dispose();
        PeerData.DeleteDirectory(_directory);
    }

    /// <summary>
    /// 1,000 lookups of random present keys through one read transaction or snapshot (<see cref="IKeyValueStore.GetBatch"/>),
    /// each value copied out; the figure is per lookup.
    /// </summary>
    [Benchmark(OperationsPerInvoke = LookupsPerInvocation)]
    [BenchmarkCategory("PeerPointRead")]
    public int PointRead()
    {
        var keys = NextKeys();
        int found = _store.GetBatch(keys, _scratch);
        if (found != keys.Length) throw new InvalidOperationException($"{Engine} found {found} of {keys.Length} loaded keys.");
        return found;
    }

    /// <summary>
    /// 1,000 lookups of random present keys, each in its own read transaction (<see cref="IKeyValueStore.Get"/>):
    /// the cost of a lone read, transaction included; the figure is per lookup.
    /// </summary>
    [Benchmark(OperationsPerInvoke = LookupsPerInvocation)]
    [BenchmarkCategory("PeerPointRead")]
    public int PointReadOwnTransaction()
    {
        int total = 0;
        foreach (var key in NextKeys())
        {
            int length = _store.Get(key.Span, _scratch);
            if (length < 0) throw new InvalidOperationException($"{Engine} lost a loaded key.");
            total += length;
        }
        return total;
    }

    /// <summary>A forward scan of 100 entries from a random present key, every key and value read (one read transaction per scan).</summary>
    [Benchmark]
    [BenchmarkCategory("PeerScan")]
    public int Scan100() => Scan(100);

    /// <summary>A forward scan of 1,000 entries from a random present key, every key and value read (one read transaction per scan).</summary>
    [Benchmark]
    [BenchmarkCategory("PeerScan")]
    public int Scan1000() => Scan(1_000);

    private int Scan(int count)
    {
        var start = _scanStarts[_nextScan];
        _nextScan = (_nextScan + 1) & (_scanStarts.Length - 1);
        int visited = _store.Scan(start.Span, count);
        if (visited != count) throw new InvalidOperationException($"{Engine} scanned {visited} entries, not {count}.");
        return visited;
    }

    private ReadOnlySpan<ReadOnlyMemory<byte>> NextKeys()
    {
        if (_nextLookup + LookupsPerInvocation > _lookupKeys.Length) _nextLookup = 0;
        var keys = _lookupKeys.AsSpan(_nextLookup, LookupsPerInvocation);
        _nextLookup += LookupsPerInvocation;
        return keys;
    }
}
