namespace StorageEngine.Peers;

/// <summary>Every engine the benchmarks know, ours first.</summary>
public static class PeerEngines
{
    private static readonly DurabilityTier[] AllTiers = [DurabilityTier.Durable, DurabilityTier.ProcessCrash, DurabilityTier.None];
    private static readonly DurabilityTier[] PersistentTiers = [DurabilityTier.Durable, DurabilityTier.ProcessCrash];

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

    /// <summary>RocksDB through librocksdb.so.</summary>
    public static PeerEngine RocksDb { get; } = new(
        "rocksdb", "apt-get install -y librocksdb7.8 (or any librocksdb.so.N)", AllTiers, RocksDbNative.Probe,
        static (dir, tier) => new RocksDbStore(dir, tier),
        static () => NativeLibraries.LoadedName(NativeLibraries.RocksDb));

    /// <summary>SQLite (bundled e_sqlite3) in WAL mode.</summary>
    public static PeerEngine Sqlite { get; } = new(
        "sqlite", "restored from NuGet (Microsoft.Data.Sqlite)", AllTiers, SqliteStore.Probe,
        static (dir, tier) => new SqliteStore(dir, tier),
        static () => "e_sqlite3 " + SqliteStore.LibraryVersion);

    /// <summary>ESENT: Windows only, and ManagedEsent does not restore from the package source here.</summary>
    public static PeerEngine Esent { get; } = new(
        "esent", "Windows only; needs the ManagedEsent package, which the configured NuGet source lacks", PersistentTiers,
        EsentStore.Probe, static (dir, tier) => new EsentStore(dir, tier));

    /// <summary>All engines, ours first.</summary>
    public static IReadOnlyList<PeerEngine> All { get; } = [StorageEngine, Lmdb, RocksDb, Sqlite, Esent];

    /// <summary>Finds an engine by name (case-insensitive); null when unknown.</summary>
    public static PeerEngine? Find(string name) =>
        All.FirstOrDefault(e => string.Equals(e.Name, name, StringComparison.OrdinalIgnoreCase));
}
