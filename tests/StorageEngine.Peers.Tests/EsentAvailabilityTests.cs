namespace StorageEngine.Peers.Tests;

/// <summary>
/// ESENT is part of Windows, so on Windows its adapter must run (and the contract tests cover it); everywhere
/// else it must say it is Windows only, never fail.
/// </summary>
public sealed class EsentAvailabilityTests
{
    [Fact]
    public void Esent_runs_on_Windows_and_says_it_is_Windows_only_elsewhere()
    {
        var esent = PeerEngines.Find("esent")!;

        if (OperatingSystem.IsWindows())
        {
            Assert.Null(esent.SkipReason);
            Assert.True(esent.Supports(DurabilityTier.Durable) && esent.Supports(DurabilityTier.ProcessCrash));
        }
        else
        {
            Assert.Contains("only on Windows", esent.SkipReason);
            Assert.Throws<EngineUnavailableException>(() => esent.Open(Path.GetTempPath(), DurabilityTier.Durable));
        }
    }

    [WindowsFact]
    public void Esent_rejects_a_key_longer_than_its_index_keeps_whole()
    {
        using var dir = new TempDirectory();
        using var store = EngineCases.Open("esent", DurabilityTier.Durable, dir.Path);

        var tooLong = new byte[Esent.EsentStore.MaxKeyBytes + 1];
        Assert.Throws<ArgumentException>(() => store.WriteBatch([new KeyValue(tooLong, new byte[1])]));
        Assert.Equal(-1, store.Get(tooLong, new byte[1]));
    }
}
