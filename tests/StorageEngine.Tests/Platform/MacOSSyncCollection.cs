namespace StorageEngine.Tests.Platform;

/// <summary>
/// The macOS sync tests run alone: they count the process's F_FULLFSYNC calls, and other tests syncing at the
/// same time would add theirs, so that a step that issued none could still see the count grow.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class MacOSSyncCollection
{
    public const string Name = "macOS syncs";
}
