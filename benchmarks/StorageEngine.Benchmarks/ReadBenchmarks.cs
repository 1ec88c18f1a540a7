using BenchmarkDotNet.Attributes;

namespace StorageEngine.Benchmarks;

/// <summary>
/// Reads from a tree of 1,000,000 entries (16-byte keys, 100-byte values) on disk, through one long-lived
/// read transaction: point lookups of random present keys, and forward range scans of 1,000 keys from
/// random starts. The tree is loaded, closed and reopened in the setup, so reads go through a freshly
/// opened environment's mapping, as they would after a restart (the warm-up touches the pages first).
/// </summary>
[MemoryDiagnoser]
public class ReadBenchmarks
{
    public const int EntryCount = 1_000_000;
    public const int ValueSize = 100;
    public const int ScanLength = 1_000;
    private const int LookupsPerInvocation = 1_000;
    private const int KeyPool = 1 << 16; // random keys, spread over the whole tree

    private string _directory = "";
    private StorageEnvironment _environment = null!;
    private ReadTransaction _transaction = null!;
    private Tree _tree = null!;
    private byte[][] _lookupKeys = [];
    private KeyRange[] _scanRanges = [];
    private int _nextLookup;
    private int _nextScan;

    [GlobalSetup]
    public void Setup()
    {
        _directory = BenchmarkData.NewDirectory("reads");
        var options = new StorageEnvironmentOptions { Path = _directory };
        using (var environment = StorageEnvironment.Open(options))
        {
            Span<byte> key = stackalloc byte[BenchmarkData.KeySize];
            Span<byte> value = stackalloc byte[ValueSize];
            for (long first = 0; first < EntryCount; first += 10_000)
            {
                using var tx = environment.BeginWrite();
                var tree = tx.CreateTree("bench");
                for (long item = first; item < first + 10_000; item++)
                {
                    BenchmarkData.WriteKey(item, key);
                    BenchmarkData.WriteValue(item, value);
                    tree.Put(key, value);
                }
                tx.Commit();
            }
        }

        _environment = StorageEnvironment.Open(options);
        _transaction = _environment.BeginRead();
        _tree = _transaction.OpenTree("bench");
        if (_tree.Count != EntryCount) throw new InvalidOperationException($"The tree holds {_tree.Count} entries, not {EntryCount}.");

        var random = new Random(12345);
        _lookupKeys = new byte[KeyPool][];
        for (int i = 0; i < KeyPool; i++) _lookupKeys[i] = BenchmarkData.Key(random.NextInt64(EntryCount));
        _scanRanges = new KeyRange[1024];
        for (int i = 0; i < _scanRanges.Length; i++)
        {
            long start = random.NextInt64(EntryCount - ScanLength);
            _scanRanges[i] = new KeyRange(BenchmarkData.Key(start), BenchmarkData.Key(start + ScanLength));
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _transaction.Dispose();
        _environment.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    /// <summary>One TryGet of a random present key (the figure is per lookup).</summary>
    [Benchmark(OperationsPerInvoke = LookupsPerInvocation)]
    public long PointRead()
    {
        long sum = 0;
        int next = _nextLookup;
        for (int i = 0; i < LookupsPerInvocation; i++)
        {
            if (!_tree.TryGet(_lookupKeys[next], out var value)) throw new InvalidOperationException("A loaded key is missing.");
            sum += value[0];
            next = (next + 1) & (KeyPool - 1);
        }
        _nextLookup = next;
        return sum;
    }

    /// <summary>A cursor over 1,000 consecutive keys from a random start, every key and value touched (the figure is per scan).</summary>
    [Benchmark]
    public long RangeScan1000()
    {
        var range = _scanRanges[_nextScan];
        _nextScan = (_nextScan + 1) & (_scanRanges.Length - 1);
        long sum = 0;
        int count = 0;
        using var cursor = _tree.CreateCursor(range);
        for (bool more = cursor.First(); more; more = cursor.Next())
        {
            sum += cursor.Key[15] + cursor.Value[0];
            count++;
        }
        if (count != ScanLength) throw new InvalidOperationException($"The scan saw {count} keys, not {ScanLength}.");
        return sum;
    }
}
