namespace StorageEngine.Tests.Durability;

/// <summary>What a simulated power loss does to the writes that were not yet synced.</summary>
public enum PowerLoss
{
    /// <summary>All of them are lost.</summary>
    UnsyncedWritesDropped,

    /// <summary>Each reached the disk, or not, at random.</summary>
    UnsyncedWritesSurviveAtRandom,

    /// <summary>Each reached the disk at random, and one that did may be cut at a sector boundary.</summary>
    UnsyncedWritesSurviveAtRandomAndTear,
}
