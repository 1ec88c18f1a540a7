namespace StorageEngine.Peers;

/// <summary>
/// One engine under comparison: how to open it in a directory at a tier, and whether it can run here.
/// </summary>
public sealed class PeerEngine
{
    private readonly Func<string, DurabilityTier, IKeyValueStore> _open;
    private readonly Func<string?> _probe;
    private readonly DurabilityTier[] _tiers;
    private readonly Lazy<string?> _skipReason;
    private readonly Func<string>? _version;

    /// <summary>Describes an engine.</summary>
    public PeerEngine(string name, string installHint, DurabilityTier[] tiers, Func<string?> probe,
        Func<string, DurabilityTier, IKeyValueStore> open, Func<string>? version = null, bool pipelinedWrites = false,
        bool orderedScans = true)
    {
        PipelinedWrites = pipelinedWrites;
        OrderedScans = orderedScans;
        _version = version;
        Name = name;
        InstallHint = installHint;
        _tiers = tiers;
        _probe = probe;
        _open = open;
        _skipReason = new Lazy<string?>(Probe);
    }

    /// <summary>Short lower-case name, as given to <c>--engines</c>.</summary>
    public string Name { get; }

    /// <summary>What to do to make the engine available where it is not.</summary>
    public string InstallHint { get; }

    /// <summary>Why the engine cannot run here, or null when it can.</summary>
    public string? SkipReason => _skipReason.Value;

    /// <summary>The library and version that will run (for the report); the skip reason when unavailable.</summary>
    public string Version => SkipReason ?? (_version is null ? "" : _version());

    /// <summary>True when its stores implement <see cref="IPipelinedWrites"/>.</summary>
    public bool PipelinedWrites { get; }

    /// <summary>
    /// True when its stores implement <see cref="IKeyValueStore.Scan"/>; false for a hash index, whose
    /// <c>Scan</c> throws <see cref="NotSupportedException"/>.
    /// </summary>
    public bool OrderedScans { get; }

    /// <summary>True when the engine offers that tier.</summary>
    public bool Supports(DurabilityTier tier) => Array.IndexOf(_tiers, tier) >= 0;

    /// <summary>Opens (creating) a store in <paramref name="directory"/>, which should be empty.</summary>
    /// <exception cref="EngineUnavailableException">The engine cannot run here.</exception>
    public IKeyValueStore Open(string directory, DurabilityTier tier)
    {
        if (SkipReason is { } reason) throw new EngineUnavailableException(reason);
        if (!Supports(tier)) throw new NotSupportedException($"{Name} has no {tier} tier.");
        Directory.CreateDirectory(directory);
        return _open(directory, tier);
    }

    private string? Probe()
    {
        try
        {
            return _probe();
        }
        catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException or BadImageFormatException or EngineUnavailableException)
        {
            return e.Message;
        }
    }
}
