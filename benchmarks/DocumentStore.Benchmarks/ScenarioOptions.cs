namespace DocumentStore.Benchmarks;

/// <summary>Sizes of the scenario; everything else is derived from <see cref="Documents"/>.</summary>
internal sealed record ScenarioOptions
{
    public long Documents { get; init; } = 100_000;
    public int BatchSize { get; init; } = 100;
    public int SingleCommits { get; init; } = 2_000;
    public int Gets { get; init; } = 100_000;
    public int QueriesPerKind { get; init; } = 1_000;
    public int PageSize { get; init; } = 20;
    public int Pages { get; init; } = 3;
    public int Seed { get; init; } = 42;

    /// <summary>Creations of empty databases, and reopens of the full one, whose median time is reported.</summary>
    public int Opens { get; init; } = 21;
}
