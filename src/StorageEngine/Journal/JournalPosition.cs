namespace StorageEngine.Journal;

/// <summary>Where a record was written: its journal file and the offset just past it.</summary>
internal readonly record struct JournalPosition(long FileNumber, long EndOffset);
