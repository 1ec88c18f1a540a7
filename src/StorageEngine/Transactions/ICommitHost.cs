namespace StorageEngine.Transactions;

/// <summary>
/// What the <see cref="CommitPipeline"/> needs from the environment that owns the journal session and the
/// files' header: the pipeline writes records and publishes snapshots, the owner decides when a session may
/// be written to and who hears of a new commit.
/// </summary>
internal interface ICommitHost
{
    /// <summary>Returns once the session's records count (a recovery's background end has named the session in the header).</summary>
    void WaitForRecovery();

    /// <summary>Called after each journal write with the file it went to, before its commits are acknowledged.</summary>
    void JournalWritten(long journalFile);

    /// <summary>Called after each commit is durable and published, in commit order; never throws.</summary>
    void Published(Snapshot snapshot);
}
