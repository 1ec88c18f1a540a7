namespace StorageEngine;

/// <summary>
/// A replication stream does not fit the environment it is applied to (another environment, a gap in
/// transaction ids, a replica that diverged from its primary), or the primary can no longer produce the
/// stream asked for. Damaged or truncated streams throw <see cref="CorruptionException"/> instead.
/// Nothing of the offending record has been applied.
/// </summary>
public sealed class ReplicationException : StorageException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="message">What is wrong and what to do.</param>
    /// <param name="requiresFullBackup">True when only a new full backup, restored, can bring the replica back.</param>
    public ReplicationException(string message, bool requiresFullBackup = false) : base(message) => RequiresFullBackup = requiresFullBackup;

    /// <summary>
    /// True when the replica cannot catch up from the journal (the primary no longer holds the transactions it
    /// needs, or the replica diverged): restore a new full backup of the primary
    /// (<see cref="StorageEnvironment.BackupAsync(System.IO.Pipelines.PipeWriter, IProgress{BackupProgress}?, CancellationToken)"/>)
    /// and ship from its transaction id.
    /// </summary>
    public bool RequiresFullBackup { get; }
}
