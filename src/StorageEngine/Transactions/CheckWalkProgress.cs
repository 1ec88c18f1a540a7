namespace StorageEngine.Transactions;

/// <summary>
/// How far an <see cref="EnvironmentChecker"/> run has come: pages visited of the snapshot's pages. The Api layer
/// forwards it as the public <c>CheckProgress</c>.
/// </summary>
/// <param name="PagesVisited">Pages visited so far.</param>
/// <param name="TotalPages">Pages of the snapshot's data file.</param>
internal readonly record struct CheckWalkProgress(long PagesVisited, long TotalPages);
