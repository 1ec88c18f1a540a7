namespace StorageEngine.Peers;

/// <summary>
/// ESENT (esent.dll, the Extensible Storage Engine of Windows): the engine of the original Voron comparison.
/// It exists only on Windows, and its managed binding (ManagedEsent) is not restorable from the package
/// source this repository builds against, so this adapter compiles everywhere and always reports itself
/// skipped with the reason. Filling it in means referencing ManagedEsent and mapping the tiers to
/// JET_bitCommitLazyFlush (ProcessCrash) and a plain JetCommitTransaction (Durable).
/// </summary>
public sealed class EsentStore : IKeyValueStore
{
    /// <summary>Always throws <see cref="EngineUnavailableException"/> with <see cref="Probe"/>'s reason.</summary>
    public EsentStore(string directory, DurabilityTier tier)
    {
        _ = directory;
        Tier = tier;
        throw new EngineUnavailableException(Probe() ?? "ESENT adapter is not implemented.");
    }

    /// <summary>Why ESENT cannot run here.</summary>
    public static string? Probe() => OperatingSystem.IsWindows()
        ? "ESENT needs the ManagedEsent package, which the configured NuGet source lacks, so no adapter is compiled"
        : $"ESENT (esent.dll) exists only on Windows; this is {System.Runtime.InteropServices.RuntimeInformation.OSDescription}";

    /// <inheritdoc />
    public string EngineName => "esent";

    /// <inheritdoc />
    public DurabilityTier Tier { get; }

    /// <inheritdoc />
    public void WriteBatch(ReadOnlySpan<KeyValue> puts) => throw Unavailable();

    /// <inheritdoc />
    public void DeleteBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys) => throw Unavailable();

    /// <inheritdoc />
    public int Get(ReadOnlySpan<byte> key, Span<byte> destination) => throw Unavailable();

    /// <inheritdoc />
    public int GetBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys, Span<byte> scratch) => throw Unavailable();

    /// <inheritdoc />
    public int Scan(ReadOnlySpan<byte> start, int count, bool backward = false) => throw Unavailable();

    /// <inheritdoc />
    public void Dispose() { }

    private static EngineUnavailableException Unavailable() => new(Probe() ?? "ESENT adapter is not implemented.");
}
