namespace StorageEngine.Tests.Stress;

/// <summary>
/// The stress tests run alone, not beside other test classes: they measure process memory and file growth and
/// time their threads, which other tests running at the same time would disturb.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class StressCollection
{
    public const string Name = "Stress";
}
