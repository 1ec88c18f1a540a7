namespace StorageEngine.Journal;

/// <summary>Contiguous pages of one record: where they go in the data file and their bytes.</summary>
/// <param name="FirstPage">Page number of the first page.</param>
/// <param name="PageCount">Number of pages.</param>
/// <param name="Data">Exactly PageCount pages of bytes, aligned for unbuffered I/O.</param>
internal readonly record struct JournalPageRun(long FirstPage, int PageCount, ReadOnlyMemory<byte> Data);
