using StorageEngine.Peers;

namespace StorageEngine.Workloads;

/// <summary>One engine opened at one tier in a fresh directory for one workload (or phase); deletes it after.</summary>
internal sealed class EngineRun : IDisposable
{
    private IKeyValueStore? _store;

    private EngineRun(string workload, PeerEngine engine, DurabilityTier tier, string directory)
    {
        Workload = workload;
        Engine = engine;
        Tier = tier;
        Directory = directory;
    }

    internal string Workload { get; }
    internal PeerEngine Engine { get; }
    internal DurabilityTier Tier { get; }
    internal string Directory { get; }

    /// <summary>RSS before the store was opened, after a full collection.</summary>
    internal long BaselineRss { get; private set; }

    internal IKeyValueStore Store => _store ?? throw new ObjectDisposedException(nameof(EngineRun));

    internal static EngineRun Open(BenchmarkContext context, string workload, PeerEngine engine, DurabilityTier tier, string suffix = "")
    {
        string directory = Path.Combine(context.Options.DataRoot, $"{workload}-{engine.Name}{suffix}");
        if (System.IO.Directory.Exists(directory)) System.IO.Directory.Delete(directory, recursive: true);
        System.IO.Directory.CreateDirectory(directory);
        var run = new EngineRun(workload, engine, tier, directory);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        run.BaselineRss = ProcessStats.Rss();
        run._store = engine.Open(directory, tier);
        return run;
    }

    /// <summary>Closes the store (its close counts in the phase that calls this) and keeps the files.</summary>
    internal void CloseStore()
    {
        _store?.Dispose();
        _store = null;
    }

    /// <summary>Opens the closed store again on its files, for phases that read what an earlier phase wrote.</summary>
    internal void ReopenStore() => _store ??= Engine.Open(Directory, Tier);

    public void Dispose()
    {
        CloseStore();
        try
        {
            System.IO.Directory.Delete(Directory, recursive: true);
        }
        catch (IOException) { }
    }
}
