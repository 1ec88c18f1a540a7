using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using StorageEngine.Common;
using StorageEngine.Journal;
using StorageEngine.Paging;
using StorageEngine.Platform;
using StorageEngine.Transactions;

namespace StorageEngine;

// Opening: what an open decides before it touches the files, the steps the constructor takes in order, and
// what an open may give up to succeed.
public sealed partial class StorageEnvironment
{
    /// <summary>ENOSPC on Linux (the HResult .NET gives an IOException), and Windows' ERROR_DISK_FULL and ERROR_HANDLE_DISK_FULL.</summary>
    private const int LinuxNoSpace = 28;
    private const int WindowsDiskFull = unchecked((int)0x80070070);
    private const int WindowsHandleDiskFull = unchecked((int)0x80070027);

    /// <summary>
    /// The directory of the environment's files, as every later call names it. On the operating system's file system
    /// it is the full path (<see cref="Path.GetFullPath(string)"/>), resolved once: .NET's own file calls resolve
    /// <c>..</c> by the path's text, the kernel by the directories on the disk, and where the two disagree (a missing
    /// <c>x</c> in <c>x/../db</c>) an open created the data file through one and failed on the journal through the other.
    /// </summary>
    private static string ResolveDirectory(StorageEnvironmentOptions options, IFileSystem fileSystem)
    {
        if (options.Durability == DurabilityMode.InMemory && options.FileSystem is null) return "/memory";
        string path = options.Path ?? throw new ArgumentException("StorageEnvironmentOptions.Path is required unless Durability is InMemory.", nameof(options));
        if (fileSystem.IsInMemory) return path;
        try
        {
            return Path.GetFullPath(path);
        }
        catch (Exception e) when (e is ArgumentException or NotSupportedException or PathTooLongException)
        {
            throw new ArgumentException($"StorageEnvironmentOptions.Path '{path}' is not a valid directory path: {e.Message}", nameof(options), e);
        }
    }

    /// <summary>True when <paramref name="e"/> or an exception inside it says the disk is full.</summary>
    private static bool IsDiskFull(Exception? e)
    {
        for (; e is not null; e = e.InnerException)
        {
            if (e is IOException && e.HResult is LinuxNoSpace or WindowsDiskFull or WindowsHandleDiskFull) return true;
        }
        return false;
    }

    /// <summary>
    /// After an open failed on a full disk: deletes the spare journal files (<c>journal-free.*</c>), under the
    /// environment's lock, so that the open can use their space. They hold no record anything needs: a spare is a
    /// retired file kept only to be reused. Returns whether any was deleted (false: retrying would not help).
    /// </summary>
    private static bool GiveBackSpareJournalFiles(StorageEnvironmentOptions options)
    {
        if (options.ReadOnly || options.Durability == DurabilityMode.InMemory || options.Path is null) return false;
        var fileSystem = options.FileSystem ?? new OsFileSystem();
        try
        {
            string directory = ResolveDirectory(options, fileSystem);
            using var held = fileSystem.AcquireLock(Path.Combine(directory, EnvironmentFiles.LockFileName));
            var spares = fileSystem.ListFiles(directory).Where(JournalFileNames.IsFree).ToList();
            foreach (string name in spares) fileSystem.Delete(Path.Combine(directory, name));
            if (spares.Count > 0)
            {
                Common.EngineLog.SpareJournalFilesDeletedForSpace((options.LoggerFactory ?? NullLoggerFactory.Instance).CreateLogger("StorageEngine"), directory, spares.Count);
            }
            return spares.Count > 0;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or StorageException)
        {
            return false;
        }
    }

    private static void ValidateOptions(StorageEnvironmentOptions options)
    {
        if (!PageSizes.IsValid(options.PageSize))
            throw new ArgumentOutOfRangeException(nameof(options), options.PageSize, $"PageSize must be a power of two from {PageSizes.Min} to {PageSizes.Max}.");
        if (options.MaxReaders is < 1 or > StorageEnvironmentOptions.MaxReadersLimit)
            throw new ArgumentOutOfRangeException(nameof(options), options.MaxReaders, $"MaxReaders must be from 1 to {StorageEnvironmentOptions.MaxReadersLimit}.");
        if (!Enum.IsDefined(options.Durability))
            throw new ArgumentOutOfRangeException(nameof(options), options.Durability, "Durability must be DurabilityMode.Safe, Lazy or InMemory.");
        // The checkpointer waits on a handle for up to the interval, on a thread of its own: a value the wait
        // refuses would end the process from there, and zero would spin that thread.
        if (options.CheckpointInterval < StorageEnvironmentOptions.MinCheckpointInterval || options.CheckpointInterval > StorageEnvironmentOptions.MaxTimeout)
            throw new ArgumentOutOfRangeException(nameof(options), options.CheckpointInterval,
                $"CheckpointInterval must be from {StorageEnvironmentOptions.MinCheckpointInterval.TotalMilliseconds} ms to {StorageEnvironmentOptions.MaxTimeout.TotalDays:0.#} days.");
        if (options.WriteTimeout != Timeout.InfiniteTimeSpan && (options.WriteTimeout < TimeSpan.Zero || options.WriteTimeout > StorageEnvironmentOptions.MaxTimeout))
            throw new ArgumentOutOfRangeException(nameof(options), options.WriteTimeout,
                $"WriteTimeout must be from zero to {StorageEnvironmentOptions.MaxTimeout.TotalDays:0.#} days, or Timeout.InfiniteTimeSpan.");
        if (options.JournalFileSize < 1 << 20) throw new ArgumentOutOfRangeException(nameof(options), options.JournalFileSize, "JournalFileSize must be at least 1 MiB.");
        if (options.CheckpointMemoryThreshold is <= 0)
            throw new ArgumentOutOfRangeException(nameof(options), options.CheckpointMemoryThreshold, "CheckpointMemoryThreshold must be positive (or null for the default).");
    }

    /// <summary>Creates the directory (or checks a read-only open's) and takes its lock file, shared when read-only.</summary>
    private (IDisposable Lock, IDisposable Held) LockDirectory(string lockFile)
    {
        if (_options.ReadOnly) ValidateReadOnlyOpen(_options, Directory);
        else _fileSystem.CreateDirectory(Directory);
        IDisposable taken;
        try
        {
            taken = _options.ReadOnly ? _fileSystem.AcquireSharedLock(lockFile) : _fileSystem.AcquireLock(lockFile);
        }
        catch (EnvironmentLockedException e)
        {
            throw new EnvironmentLockedException(lockFile, HeldLocks.IsHeld(_fileSystem, lockFile), e);
        }
        // This process's record of the lock (see HeldLocks), released with it.
        return (taken, HeldLocks.Record(_fileSystem, lockFile));
    }

    /// <summary>Opens or creates the data file (locked before anything reads it) and replays a crashed session's journal.</summary>
    private EnvironmentFiles.Opened OpenFiles(string lockFile)
    {
        bool readOnly = _options.ReadOnly;
        return EnvironmentFiles.OpenOrCreate(_fileSystem, Directory, _options.PageSize, _options.Durability, _logger, readOnly, _options.AcceptJournalLoss,
            file =>
            {
                if (!file.TryLockEnvironment(shared: readOnly, out string? holder))
                    throw EnvironmentLockedException.ForDataFile(file.Path, lockFile, readOnly, holder);
            });
    }

    /// <summary>
    /// Loads the free-space map, checks the bitmaps against the trees' extent, and rebuilds it if the open asks. After
    /// a clean close the count it recorded is taken instead of counting every bitmap page (a cost that grew with the
    /// file: two pages per GiB, each faulted in and checksummed); those pages are then verified when first read, as
    /// tree pages are, and the check below still reads the last section's.
    /// </summary>
    private void LoadFreeSpace(EnvironmentFiles.Opened opened)
    {
        var loader = PageSourceFor(_commits.Published);
        var bitmaps = NewPageWriter(_commits.Published, loader, 0);
        if (opened.RecordedFreePages >= 0) _freeSpace.Assume(opened.RecordedFreePages, opened.State.TransactionId);
        else _freeSpace.Load(bitmaps, opened.State.PageCount, opened.State.TransactionId);
        // Only a lost Lazy tail legitimately leaves the bitmaps ahead of the trees, and the rebuild below fixes that.
        if (!opened.NeedsFreeSpaceRebuild && _freeSpace.FirstFreePast(bitmaps, opened.State.PageCount, out long bitmapPage) is var past and >= 0)
            throw loader.Corruption(bitmapPage, $"the free-space bitmap marks page {past} free, past the {opened.State.PageCount} pages of the file: it is newer than the recovered transaction {opened.State.TransactionId} (journal records lost?).");
        _checkpointedTransactionId = opened.State.TransactionId;
        if (opened.NeedsFreeSpaceRebuild) RebuildFreeSpace();
    }

    /// <summary>
    /// The new session's journal. Its first file exists before the header names the session (see
    /// EnvironmentFiles.Opened): now, or after a replay once the replayed pages are synced, in the background (the
    /// first journal write waits for that).
    /// </summary>
    private JournalWriter OpenJournal(EnvironmentFiles.Opened opened, long sessionId) =>
        new(_fileSystem, Directory, Header.EnvironmentId, sessionId, PageSize, _options.JournalFileSize,
            durable: _options.Durability == DurabilityMode.Safe, opened.NextJournalFile, _logger, openLater: opened.SessionPending);

    /// <summary>Names the new session in the header and retires the journal files it does not need. Returns null: nothing runs on.</summary>
    private QueuedWork? StartSession(EnvironmentFiles.Opened opened, long sessionId)
    {
        Header = EnvironmentFiles.StartSession(_data.File, Header, opened.State, opened.NextJournalFile, _options.Durability == DurabilityMode.Lazy, sessionId);
        int retired = _journal!.RetireBelow(opened.NextJournalFile);
        if (retired > 0) EngineLog.JournalFilesRetiredAfterOpening(_logger, retired);
        return null;
    }

    /// <summary>
    /// Syncs the replayed pages, if any, and names the new session (see FinishRecovery) off the open's path. After a
    /// replay it runs in the background: on the thread pool, or on the thread of the first commit, checkpoint or
    /// shipping session that needs it before the pool got to it (see <see cref="QueuedWork"/>), so that a busy pool
    /// never holds up the first write. With nothing replayed it waits for that first need: an environment only read
    /// from then writes nothing at all, neither the session's header and journal file at open nor a final
    /// checkpoint at close (see <see cref="Close"/>), and its files stay as the last session left them.
    /// </summary>
    private QueuedWork FinishRecoveryInBackground(EnvironmentFiles.Opened opened, long sessionId)
    {
        Action finish = () => FinishRecovery(opened.State, opened.NextJournalFile, sessionId, _options.Durability == DurabilityMode.Lazy, opened.Replayed);
        return opened.Replayed > 0 ? QueuedWork.Start(finish) : QueuedWork.Deferred(finish);
    }
}
