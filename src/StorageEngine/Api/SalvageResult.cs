namespace StorageEngine;

/// <summary>What <see cref="TreeSalvage.Salvage"/> read from a tree and what it had to skip.</summary>
/// <param name="EntriesRead">Entries handed to the visitor.</param>
/// <param name="EntriesExpected">The entry count the tree's header records (what an undamaged tree holds).</param>
/// <param name="DamagedPages">The pages that could not be read, in the order the walk met them.</param>
public sealed record SalvageResult(long EntriesRead, long EntriesExpected, IReadOnlyList<DamagedPage> DamagedPages)
{
    /// <summary>True when nothing was skipped.</summary>
    public bool IsComplete => DamagedPages.Count == 0;
}
