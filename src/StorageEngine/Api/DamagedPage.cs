namespace StorageEngine;

/// <summary>A page that <see cref="TreeSalvage.Salvage"/> could not read, and what it skipped because of it.</summary>
/// <param name="PageNumber">The damaged page (for an overflow value, its first page).</param>
/// <param name="Problem">What is wrong with it.</param>
/// <param name="Skipped">What was left out: the subtree under a branch or leaf page, or one entry's value.</param>
public sealed record DamagedPage(long PageNumber, string Problem, string Skipped);
