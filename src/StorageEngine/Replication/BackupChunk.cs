namespace StorageEngine.Replication;

/// <summary>Consecutive pages a backup stream carries as one chunk.</summary>
/// <param name="FirstPage">Page number of the first page.</param>
/// <param name="PageCount">Number of pages.</param>
internal readonly record struct BackupChunk(long FirstPage, int PageCount);
