namespace StorageEngine.Peers.Tests;

/// <summary>
/// The (engine, tier) pairs the conformance tests run on: every engine in <see cref="PeerEngines.All"/> that loads
/// here, at every tier it offers. An engine that cannot run here is absent (see
/// <see cref="EngineAvailabilityTests"/>), never a failure.
/// </summary>
public static class EngineCases
{
    /// <summary>Every available engine at every tier it supports.</summary>
    public static TheoryData<string, DurabilityTier> All => Cases(_ => true);

    /// <summary>Every available engine at the tiers whose commits outlive the process (Durable, ProcessCrash).</summary>
    public static TheoryData<string, DurabilityTier> Persistent => Cases(tier => tier != DurabilityTier.None);

    /// <summary>Opens <paramref name="engine"/> at <paramref name="tier"/> in <paramref name="directory"/>.</summary>
    public static IKeyValueStore Open(string engine, DurabilityTier tier, string directory) =>
        (PeerEngines.Find(engine) ?? throw new ArgumentException($"Unknown engine {engine}.", nameof(engine))).Open(directory, tier);

    private static TheoryData<string, DurabilityTier> Cases(Func<DurabilityTier, bool> wanted)
    {
        var data = new TheoryData<string, DurabilityTier>();
        foreach (var engine in PeerEngines.All)
        {
            if (engine.SkipReason is not null) continue;
            foreach (var tier in Enum.GetValues<DurabilityTier>())
                if (engine.Supports(tier) && wanted(tier)) data.Add(engine.Name, tier);
        }
        return data;
    }
}
