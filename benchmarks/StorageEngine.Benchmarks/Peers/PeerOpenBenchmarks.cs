using BenchmarkDotNet.Attributes;
using StorageEngine.Peers;

namespace StorageEngine.Benchmarks.Peers;

/// <summary>
/// Time from nothing to a first answered read: open an existing store of <see cref="EntryCount"/> entries
/// (Durable tier, as the adapter opens it) and look up one key, the key of the last acknowledged commit.
/// Both benchmarks start from the same history, built once per case in the setup: <see cref="EntryCount"/>
/// entries (16-byte ascending keys, 100-byte values) put in durable transactions of 10,000, the store closed
/// and opened again, then <see cref="CommitsBeforeImage"/> durable single-put commits of new random keys.
/// <list type="bullet">
/// <item><see cref="OpenAfterCleanClose"/>: the store was then closed normally (Dispose).</item>
/// <item><see cref="OpenAfterCrash"/>: instead, the directory was copied while the store was open, after the
/// last commit had returned, and the store was closed afterwards: the copy is what a process crash at that
/// moment leaves. StorageEngine ran those commits with background checkpoints off (interval infinite,
/// threshold unreachable), so the copy's journal holds all of them past the last checkpoint and the open
/// replays them (the setup checks this). The peers keep their own defaults: LMDB has nothing to recover;
/// RocksDB replays its WAL (the commits since the reopen) and flushes it to a level-0 file; SQLite opens the
/// database with a WAL of the frames since its last automatic checkpoint.</item>
/// </list>
/// Each iteration copies the saved image into a fresh directory and fsyncs it (<c>[IterationSetup]</c>, not
/// timed), then times one open plus the lookup; closing is not timed (<c>[IterationCleanup]</c>). Files are in
/// the page cache (just copied), so this measures the engines' open and recovery work, not cold reads from the
/// device. Note RocksDB's close does not flush its memtable while its WAL is on, so even its clean open
/// replays the WAL of the last commits.
/// </summary>
[Config(typeof(PeerBenchmarkConfig))]
[ColdStartOpens]
[BenchmarkCategory("Peer", "PeerOpen")]
public class PeerOpenBenchmarks
{
    /// <summary>Entries loaded before the image is taken.</summary>
    public const long EntryCount = 1_000_000;

    /// <summary>Durable single-put commits after the reopen, just before the image is taken.</summary>
    public const int CommitsBeforeImage = 1_000;

    // The tree StorageEngineStore keeps its data in (a private constant of the adapter).
    private const string StorageEngineTree = "bench";

    private string _root = "";
    private string _image = "";
    private string _work = "";
    private byte[] _probeKey = [];
    private readonly byte[] _scratch = new byte[PeerData.ValueSize];
    private IKeyValueStore? _opened;

    /// <summary>The engine under test.</summary>
    [ParamsSource(nameof(Engines))]
    public string Engine { get; set; } = "";

    /// <summary>The engines that run here, StorageEngine first.</summary>
    public static IEnumerable<string> Engines => PeerEngineSource.Available;

    /// <summary>Builds the image of a store closed normally.</summary>
    [GlobalSetup(Target = nameof(OpenAfterCleanClose))]
    public void SetupCleanClose() => BuildImage(crash: false);

    /// <summary>Builds the image of a store copied while open, with commits to recover.</summary>
    [GlobalSetup(Target = nameof(OpenAfterCrash))]
    public void SetupCrash() => BuildImage(crash: true);

    /// <summary>A fresh copy of the image, synced to the device.</summary>
    [IterationSetup]
    public void CopyImage()
    {
        _work = Path.Combine(_root, "work");
        PeerData.CopyDirectory(_image, _work, sync: true);
    }

    /// <summary>Closes what the iteration opened and deletes the copy.</summary>
    [IterationCleanup]
    public void CloseCopy()
    {
        _opened?.Dispose();
        _opened = null;
        PeerData.DeleteDirectory(_work);
    }

    /// <summary>Deletes the case's directory.</summary>
    [GlobalCleanup]
    public void Cleanup() => PeerData.DeleteDirectory(_root);

    /// <summary>Open a store that was closed normally, then read the last committed key.</summary>
    [Benchmark]
    public int OpenAfterCleanClose() => OpenAndRead();

    /// <summary>Open a store copied while open (a process crash), recovering as the engine does, then read the last committed key.</summary>
    [Benchmark]
    public int OpenAfterCrash() => OpenAndRead();

    private int OpenAndRead()
    {
        _opened = PeerEngineSource.OpenDurable(Engine, _work);
        int length = _opened.Get(_probeKey, _scratch);
        if (length != PeerData.ValueSize) throw new InvalidOperationException($"{Engine} lost the last acknowledged commit (Get returned {length}).");
        return length;
    }

    private void BuildImage(bool crash)
    {
        _root = PeerData.NewDirectory(crash ? "open-crash" : "open-clean", Engine);
        string source = Path.Combine(_root, "source");
        _image = Path.Combine(_root, "image");
        using (var store = PeerEngineSource.OpenDurable(Engine, source)) PeerData.Load(store, 0, EntryCount);

        var random = new Random(99);
        var batch = new PutBatch(1, PeerData.ValueSize);
        long lastItem = 0;
        if (Engine == PeerEngineSource.StorageEngineName)
        {
            using var environment = StorageEnvironment.Open(new StorageEnvironmentOptions
            {
                Path = source,
                Durability = DurabilityMode.Safe,
                CheckpointInterval = Timeout.InfiniteTimeSpan,
                CheckpointThreshold = long.MaxValue,
            });
            for (int i = 0; i < CommitsBeforeImage; i++)
            {
                lastItem = PeerData.RandomItem(random);
                batch.Set(0, lastItem);
                var put = batch.Puts(1)[0];
                using var tx = environment.BeginWrite();
                tx.OpenTree(StorageEngineTree).Put(put.Key.Span, put.Value.Span);
                tx.Commit();
            }
            var statistics = environment.GetStatistics();
            if (crash)
            {
                if (statistics.LastCheckpointTransactionId >= statistics.LastCommittedTransactionId)
                    throw new InvalidOperationException("The crash image would need no journal replay.");
                PeerData.CopyDirectory(source, _image, sync: true);
                Console.WriteLine($"// {Engine}: image journal holds transactions {statistics.LastCheckpointTransactionId + 1}..{statistics.LastCommittedTransactionId} past the checkpoint ({statistics.JournalBytesWritten:N0} journal bytes written since the open)");
            }
        }
        else
        {
            using var store = PeerEngineSource.OpenDurable(Engine, source);
            for (int i = 0; i < CommitsBeforeImage; i++)
            {
                lastItem = PeerData.RandomItem(random);
                batch.Set(0, lastItem);
                store.WriteBatch(batch.Puts(1));
            }
            if (crash) PeerData.CopyDirectory(source, _image, sync: true);
        }
        if (!crash) PeerData.CopyDirectory(source, _image, sync: true);
        PeerData.DeleteDirectory(source);
        _probeKey = BenchmarkData.Key(lastItem);

        long bytes = new DirectoryInfo(_image).GetFiles("*", SearchOption.AllDirectories).Sum(f => f.Length);
        Console.WriteLine($"// {Engine}: {(crash ? "crash" : "clean")} image of {EntryCount:N0} + {CommitsBeforeImage:N0} entries, {bytes:N0} bytes in {_image}");
    }
}
