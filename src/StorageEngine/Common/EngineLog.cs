using Microsoft.Extensions.Logging;

namespace StorageEngine.Common;

/// <summary>
/// Every event the engine logs, each with its own <see cref="EventId"/> so that it can be filtered and alerted on,
/// through source-generated <see cref="LoggerMessageAttribute"/> methods (no boxing, no parsing of the template on
/// each call). Ids by area: 1xxx opening and closing, 2xxx recovery, 3xxx checkpoints, 4xxx the journal,
/// 5xxx maintenance. An id, once published, keeps its meaning.
/// </summary>
internal static partial class EngineLog
{
    [LoggerMessage(EventId = 1001, EventName = "EnvironmentCreated", Level = LogLevel.Information,
        Message = "Created environment {Path} with {PageSize}-byte pages.")]
    public static partial void EnvironmentCreated(this ILogger logger, string path, int pageSize);

    [LoggerMessage(EventId = 1002, EventName = "EnvironmentOpened", Level = LogLevel.Information,
        Message = "Opened environment {Path} at transaction {TransactionId} ({Pages} pages, durability {Durability}).")]
    public static partial void EnvironmentOpened(this ILogger logger, string path, long transactionId, long pages, DurabilityMode durability);

    [LoggerMessage(EventId = 1003, EventName = "EnvironmentClosed", Level = LogLevel.Information, Message = "Closed environment {Path}.")]
    public static partial void EnvironmentClosed(this ILogger logger, string path);

    [LoggerMessage(EventId = 1004, EventName = "JournalFilesRetiredAfterOpening", Level = LogLevel.Debug,
        Message = "Retired {Count} journal files after opening.")]
    public static partial void JournalFilesRetiredAfterOpening(this ILogger logger, int count);

    [LoggerMessage(EventId = 1005, EventName = "FinalCheckpointFailed", Level = LogLevel.Error,
        Message = "The final checkpoint failed; the journal still holds every commit and recovery applies it on the next open.")]
    public static partial void FinalCheckpointFailed(this ILogger logger, Exception exception);

    [LoggerMessage(EventId = 1006, EventName = "JournalRemovalAfterCloseFailed", Level = LogLevel.Warning,
        Message = "Removing journal files after the final checkpoint failed; the next open retires them.")]
    public static partial void JournalRemovalAfterCloseFailed(this ILogger logger, Exception exception);

    [LoggerMessage(EventId = 1007, EventName = "EnvironmentClosedWithReadersLeft", Level = LogLevel.Warning,
        Message = "Closed environment {Path} with {Readers} read transactions not disposed; they throw ObjectDisposedException from now on, and the memory they read is kept until they are disposed.")]
    public static partial void EnvironmentClosedWithReadersLeft(this ILogger logger, string path, int readers);

    [LoggerMessage(EventId = 1008, EventName = "LostDataFileReplaced", Level = LogLevel.Warning,
        Message = "The data file {Path} was empty beside {Count} journal files of a lost environment; AcceptJournalLoss is set, so they were deleted and a new environment is created.")]
    public static partial void LostDataFileReplaced(this ILogger logger, string path, int count);

    [LoggerMessage(EventId = 1009, EventName = "JournalLossAccepted", Level = LogLevel.Warning,
        Message = "{Problem} The last session did not close cleanly; AcceptJournalLoss is set, so the environment opens as of its last checkpoint, transaction {Checkpoint}, and every commit after it is lost.")]
    public static partial void JournalLossAccepted(this ILogger logger, string problem, long checkpoint);

    [LoggerMessage(EventId = 1010, EventName = "SpareJournalFilesDeletedForSpace", Level = LogLevel.Warning,
        Message = "Opening {Path} found the disk full; deleted its {Count} spare journal files to make room, and opens again.")]
    public static partial void SpareJournalFilesDeletedForSpace(this ILogger logger, string path, int count);

    [LoggerMessage(EventId = 2001, EventName = "RecoveryReplayed", Level = LogLevel.Information,
        Message = "Recovery replayed {Records} journal records (transactions {First} to {Last}) in {Elapsed} ms.")]
    public static partial void RecoveryReplayed(this ILogger logger, long records, long first, long last, double elapsed);

    [LoggerMessage(EventId = 2002, EventName = "RecoveredPagesSynced", Level = LogLevel.Debug,
        Message = "Recovered pages synced and new session started in {Elapsed} ms; {Retired} journal files retired.")]
    public static partial void RecoveredPagesSynced(this ILogger logger, double elapsed, int retired);

    [LoggerMessage(EventId = 2003, EventName = "RecoverySyncFailed", Level = LogLevel.Error,
        Message = "Syncing the recovered pages failed; writes are refused until the environment is reopened, which recovers again from the journal.")]
    public static partial void RecoverySyncFailed(this ILogger logger, Exception exception);

    [LoggerMessage(EventId = 2004, EventName = "RecoveryTidyingFailed", Level = LogLevel.Warning,
        Message = "Retiring the recovered journal or preparing the new session's first journal file failed; later checkpoints and the first commit try again.")]
    public static partial void RecoveryTidyingFailed(this ILogger logger, Exception exception);

    [LoggerMessage(EventId = 2005, EventName = "FreeSpaceRebuilt", Level = LogLevel.Warning,
        Message = "The last session ran in Lazy mode and did not close cleanly; rebuilt the free-space map from the trees ({Changed} pages corrected) in {Elapsed} ms.")]
    public static partial void FreeSpaceRebuilt(this ILogger logger, long changed, double elapsed);

    [LoggerMessage(EventId = 2006, EventName = "FirstJournalFileDeferred", Level = LogLevel.Warning,
        Message = "Opening the new session's first journal file failed; it is tried again once the recovered journal is retired.")]
    public static partial void FirstJournalFileDeferred(this ILogger logger, Exception exception);

    [LoggerMessage(EventId = 3001, EventName = "CheckpointWritten", Level = LogLevel.Debug,
        Message = "Checkpoint at transaction {TransactionId} in {Elapsed} ms; {Retired} journal files recycled.")]
    public static partial void CheckpointWritten(this ILogger logger, long transactionId, double elapsed, int retired);

    [LoggerMessage(EventId = 3002, EventName = "BackgroundCheckpointFailed", Level = LogLevel.Error,
        Message = "Background checkpoint failed; it will be retried.")]
    public static partial void BackgroundCheckpointFailed(this ILogger logger, Exception exception);

    [LoggerMessage(EventId = 3003, EventName = "ReuseCheckpointFailed", Level = LogLevel.Warning,
        Message = "A checkpoint run to reuse freed pages failed; the data file grows instead.")]
    public static partial void ReuseCheckpointFailed(this ILogger logger, Exception exception);

    [LoggerMessage(EventId = 3004, EventName = "IdleMemoryReleaseFailed", Level = LogLevel.Warning,
        Message = "Giving back the memory of idle page buffers failed; they stay allocated for the next commits.")]
    public static partial void IdleMemoryReleaseFailed(this ILogger logger, Exception exception);

    [LoggerMessage(EventId = 3005, EventName = "CheckpointerStartFailed", Level = LogLevel.Warning,
        Message = "Starting the background checkpointer's thread failed; it is tried again, and commits checkpoint for themselves meanwhile when they must.")]
    public static partial void CheckpointerStartFailed(this ILogger logger, Exception exception);

    [LoggerMessage(EventId = 4001, EventName = "JournalFilePreallocated", Level = LogLevel.Debug,
        Message = "Preallocated journal file {Path} ({Size} bytes).")]
    public static partial void JournalFilePreallocated(this ILogger logger, string path, long size);

    [LoggerMessage(EventId = 4002, EventName = "JournalWritesBuffered", Level = LogLevel.Warning,
        Message = "The file system refuses unbuffered I/O for {Path}; the journal falls back to buffered writes and fdatasync on every commit.")]
    public static partial void JournalWritesBuffered(this ILogger logger, string path);

    [LoggerMessage(EventId = 4003, EventName = "SpareJournalFileFailed", Level = LogLevel.Warning,
        Message = "Preparing a spare journal file failed; the next switch will make its own.")]
    public static partial void SpareJournalFileFailed(this ILogger logger, Exception exception);

    [LoggerMessage(EventId = 5001, EventName = "CompactionDestinationCloseFailed", Level = LogLevel.Warning,
        Message = "Closing the partial compaction destination {Path} failed; removing it anyway.")]
    public static partial void CompactionDestinationCloseFailed(this ILogger logger, Exception exception, string path);

    [LoggerMessage(EventId = 5002, EventName = "CompactionDestinationRemovalFailed", Level = LogLevel.Warning,
        Message = "Could not remove the partial compaction destination {Path}.")]
    public static partial void CompactionDestinationRemovalFailed(this ILogger logger, Exception exception, string path);
}
