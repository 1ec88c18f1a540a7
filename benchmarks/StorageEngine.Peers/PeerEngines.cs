namespace StorageEngine.Peers;

/// <summary>Every engine the benchmarks know, ours first.</summary>
public static class PeerEngines
{
    private static readonly DurabilityTier[] AllTiers = [DurabilityTier.Durable, DurabilityTier.ProcessCrash, DurabilityTier.None];
    private static readonly DurabilityTier[] PersistentTiers = [DurabilityTier.Durable, DurabilityTier.ProcessCrash];
    private static readonly DurabilityTier[] NoneTier = [DurabilityTier.None];

    /// <summary>StorageEngine itself: Safe, Lazy, InMemory.</summary>
    public static PeerEngine StorageEngine { get; } = new(
        "storageengine", "built from this repository", AllTiers, static () => null,
        static (dir, tier) => new StorageEngineStore(dir, tier),
        static () => "StorageEngine " + typeof(StorageEnvironment).Assembly.GetName().Version, pipelinedWrites: true);

    /// <summary>LMDB through LightningDB (which ships liblmdb).</summary>
    public static PeerEngine Lmdb { get; } = new(
        "lmdb", "restored from NuGet (LightningDB)", PersistentTiers, LmdbStore.Probe,
        static (dir, tier) => new LmdbStore(dir, tier),
        static () => LmdbStore.LibraryVersion);

    /// <summary>RocksDB through the RocksDB NuGet package (RocksDbSharp with its bundled librocksdb).</summary>
    public static PeerEngine RocksDb { get; } = new(
        "rocksdb", "restored from NuGet (RocksDB, which bundles librocksdb)", AllTiers, RocksDbStore.Probe,
        static (dir, tier) => new RocksDbStore(dir, tier),
        static () => RocksDbStore.LibraryVersion);

    /// <summary>SQLite (bundled e_sqlite3) in WAL mode.</summary>
    public static PeerEngine Sqlite { get; } = new(
        "sqlite", "restored from NuGet (Microsoft.Data.Sqlite)", AllTiers, SqliteStore.Probe,
        static (dir, tier) => new SqliteStore(dir, tier),
        static () => "e_sqlite3 " + SqliteStore.LibraryVersion);

    /// <summary>ESENT through esent.dll (part of Windows): Windows only.</summary>
    public static PeerEngine Esent { get; } = new(
        "esent", "Windows only (esent.dll ships with Windows); run the benchmarks on Windows", PersistentTiers,
        global::StorageEngine.Peers.Esent.EsentStore.Probe, static (dir, tier) => new global::StorageEngine.Peers.Esent.EsentStore(dir, tier),
        static () => global::StorageEngine.Peers.Esent.EsentStore.LibraryVersion);

    /// <summary>
    /// ZoneTree, opened transactional so a batch is atomic at every tier: shared WAL synced per commit, shared WAL
    /// written to the OS per commit, no WAL.
    /// </summary>
    public static PeerEngine ZoneTree { get; } = new(
        "zonetree", "restored from NuGet (ZoneTree)", AllTiers, static () => null,
        static (dir, tier) => new ZoneTreeStore(dir, tier),
        static () => ZoneTreeStore.LibraryVersion + ", transactional (MVCC), shared WAL");

    /// <summary>FASTER's FasterKV: None tier only, point operations only, batches not atomic.</summary>
    public static PeerEngine Faster { get; } = new(
        "faster", "restored from NuGet (Microsoft.FASTER.Core)", NoneTier, static () => null,
        static (dir, tier) => new FasterStore(dir, tier),
        static () => FasterStore.LibraryVersion + ", FasterKV<SpanByte,SpanByte>; hash index (no scans), batches not atomic",
        orderedScans: false);

    /// <summary>All engines, ours first.</summary>
    public static IReadOnlyList<PeerEngine> All { get; } = [StorageEngine, Lmdb, RocksDb, Sqlite, Esent, ZoneTree, Faster];

    /// <summary>Finds an engine by name (case-insensitive); null when unknown.</summary>
    public static PeerEngine? Find(string name) =>
        All.FirstOrDefault(e => string.Equals(e.Name, name, StringComparison.OrdinalIgnoreCase));
}
