namespace StorageEngine.Transactions;

/// <summary>
/// What <see cref="EnvironmentChecker"/> found in one snapshot. The Api layer turns it into the public
/// <c>CheckReport</c>; this layer does not know that type.
/// </summary>
/// <param name="Problems">Each broken invariant, in words.</param>
/// <param name="TreeCount">Named trees.</param>
/// <param name="EntryCount">Entries in all named trees.</param>
/// <param name="PagesInUse">Pages reachable from the trees, plus headers and bitmaps.</param>
/// <param name="FreePages">Pages the bitmaps mark free.</param>
/// <param name="PageCount">Pages of the snapshot's data file.</param>
internal sealed record CheckResult(IReadOnlyList<string> Problems, long TreeCount, long EntryCount, long PagesInUse, long FreePages, long PageCount);
