namespace StorageEngine;

/// <summary>What <see cref="EnvironmentGauges"/> reads from one open environment, without touching its files.</summary>
internal readonly record struct EnvironmentGaugeReading(long LastCommittedTransactionId, long PageCount, long FreePages, long DataFileBytes,
    int OpenReaders, long OldestReaderTransactionId, long JournalWrites, long JournalBytesWritten);
