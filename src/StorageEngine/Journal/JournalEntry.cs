namespace StorageEngine.Journal;

/// <summary>What one journal record carries: a transaction's id, its opaque state block and its pages.</summary>
/// <param name="TransactionId">The transaction the record commits.</param>
/// <param name="State">Exactly <see cref="JournalRecordHeader.StateSize"/> bytes, stored in the record header.</param>
/// <param name="Runs">The pages, in page order.</param>
internal readonly record struct JournalEntry(long TransactionId, ReadOnlyMemory<byte> State, IReadOnlyList<JournalPageRun> Runs);
