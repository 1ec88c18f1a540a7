namespace StorageEngine.Journal;

/// <summary>
/// A journal file kept for reuse (<c>journal-free.N</c>, or a retired file about to be renamed so) and its length.
/// A class rather than a tuple: lists of it run the runtime's precompiled shared code, where a list of tuples
/// was compiled in each process's first open and close.
/// </summary>
internal sealed record SpareJournalFile(string Path, long Length);
