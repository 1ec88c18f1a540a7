namespace StorageEngine.Tests.Platform;

/// <summary>
/// The macOS sync tests run alone: they count the process's F_FULLFSYNC calls, which other tests syncing at
/// the same time would add to.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class MacOSSyncCollection
{
    public const string Name = "macOS syncs";
}
