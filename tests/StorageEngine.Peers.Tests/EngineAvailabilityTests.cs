using Xunit.Abstractions;

namespace StorageEngine.Peers.Tests;

/// <summary>Which engines the conformance tests cover here, and why the others are left out.</summary>
public sealed class EngineAvailabilityTests(ITestOutputHelper output)
{
    [Fact]
    public void StorageEngine_always_runs_at_every_tier()
    {
        var cases = EngineCases.All.Select(row => ((string)row[0], (DurabilityTier)row[1])).ToList();

        foreach (var tier in Enum.GetValues<DurabilityTier>()) Assert.Contains(("storageengine", tier), cases);
    }

    [Fact]
    public void Every_engine_left_out_says_why_and_how_to_install_it()
    {
        foreach (var engine in PeerEngines.All)
        {
            output.WriteLine($"{engine.Name}: {engine.SkipReason ?? "runs here"}");
            if (engine.SkipReason is null) continue;
            Assert.False(string.IsNullOrWhiteSpace(engine.SkipReason));
            Assert.False(string.IsNullOrWhiteSpace(engine.InstallHint));
            Assert.Throws<EngineUnavailableException>(() => engine.Open(Path.GetTempPath(), DurabilityTier.Durable));
        }
    }
}
