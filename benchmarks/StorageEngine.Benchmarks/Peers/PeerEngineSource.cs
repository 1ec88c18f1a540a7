using StorageEngine.Peers;

namespace StorageEngine.Benchmarks.Peers;

/// <summary>
/// The engines the peer benchmarks compare, as the values of their <c>Engine</c> parameter: every engine of
/// <see cref="PeerEngines"/> whose library loads here and that offers the <see cref="DurabilityTier.Durable"/>
/// tier, StorageEngine first. An engine that cannot run is left out with a console note, not an error.
/// <c>$STORAGEENGINE_BENCH_ENGINES</c> (comma-separated names) narrows the set.
/// </summary>
public static class PeerEngineSource
{
    /// <summary>Our engine's name: the case every ratio is taken against.</summary>
    public const string StorageEngineName = "storageengine";

    private static readonly Lazy<string[]> AvailableNames = new(Probe);

    /// <summary>Names of the engines that run here, StorageEngine first (the <c>[ParamsSource]</c> of every peer benchmark).</summary>
    public static IEnumerable<string> Available => AvailableNames.Value;

    /// <summary>Position of an engine in <see cref="PeerEngines.All"/> (StorageEngine is 0), for ordering the summary.</summary>
    public static int OrderOf(string name)
    {
        for (int i = 0; i < PeerEngines.All.Count; i++)
            if (string.Equals(PeerEngines.All[i].Name, name, StringComparison.OrdinalIgnoreCase)) return i;
        return int.MaxValue;
    }

    /// <summary>Opens (creating) a store of <paramref name="engine"/> in <paramref name="directory"/> at the Durable tier.</summary>
    public static IKeyValueStore OpenDurable(string engine, string directory)
    {
        var peer = PeerEngines.Find(engine) ?? throw new ArgumentException($"Unknown engine '{engine}'.", nameof(engine));
        return peer.Open(directory, DurabilityTier.Durable);
    }

    private static string[] Probe()
    {
        var wanted = Environment.GetEnvironmentVariable("STORAGEENGINE_BENCH_ENGINES")?
            .Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        var names = new List<string>();
        foreach (var engine in PeerEngines.All)
        {
            if (wanted is not null && !wanted.Contains(engine.Name, StringComparer.OrdinalIgnoreCase)) continue;
            if (engine.SkipReason is { } reason)
                Console.WriteLine($"// Peer benchmarks: {engine.Name} is left out: {reason}. To run it: {engine.InstallHint}.");
            else if (!engine.Supports(DurabilityTier.Durable))
                Console.WriteLine($"// Peer benchmarks: {engine.Name} is left out: it has no Durable tier.");
            else
                names.Add(engine.Name);
        }
        return names.ToArray();
    }
}
