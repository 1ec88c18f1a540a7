namespace StorageEngine;

/// <summary>
/// Whether an environment can serve reads and writes now, from <see cref="StorageEnvironment.GetHealth"/>: cheap,
/// lock-free, and safe to call at any time, also after the environment was disposed (for health checks).
/// </summary>
public sealed record EnvironmentHealth
{
    /// <summary>False once the environment was disposed: it serves nothing more.</summary>
    public required bool IsOpen { get; init; }

    /// <summary>True when it was opened read-only: it serves reads only, by design.</summary>
    public required bool IsReadOnly { get; init; }

    /// <summary>True for a replica: writes come only from the primary's journal, by design.</summary>
    public required bool IsReplica { get; init; }

    /// <summary>
    /// Why the environment accepts no more writes: an earlier commit failed while writing the journal or the data
    /// file (a full or failing disk). Null while writes go through. Reopening recovers every acknowledged commit.
    /// </summary>
    public string? WriteFailure { get; init; }

    /// <summary>The newest committed transaction.</summary>
    public required long LastCommittedTransactionId { get; init; }

    /// <summary>True when it is open and a write would be accepted (not read-only, not a replica, no write failure).</summary>
    public bool AcceptsWrites => IsOpen && !IsReadOnly && !IsReplica && WriteFailure is null;

    internal static EnvironmentHealth Of(StorageEnvironment environment, Exception? writeFailure) => new()
    {
        IsOpen = !environment.IsDisposed,
        IsReadOnly = environment.IsReadOnly,
        IsReplica = environment.IsReplica,
        WriteFailure = writeFailure?.InnerException?.Message is { } inner ? $"{writeFailure.Message} ({inner})" : writeFailure?.Message,
        LastCommittedTransactionId = environment.LastCommittedTransactionId,
    };
}
