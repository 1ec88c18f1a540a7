using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using StorageEngine.BTrees;
using StorageEngine.Common;
using StorageEngine.Journal;
using StorageEngine.Paging;
using StorageEngine.Platform;
using StorageEngine.Transactions;

namespace StorageEngine;

/// <summary>
/// An open environment: one data file of named B+trees, its journal, and the transactions over them. One
/// write transaction at a time, any number of read transactions beside it, each on a stable snapshot.
/// Thread-safe; transactions are not tied to threads.
/// </summary>
public sealed partial class StorageEnvironment : IDisposable
{
    /// <summary>Largest value, in bytes.</summary>
    public const int MaxValueSize = 1 << 30;

    private readonly StorageEnvironmentOptions _options;
    private readonly IFileSystem _fileSystem;
    private readonly IDisposable _lock;
    // This process's record of the lock (see HeldLocks), released with it.
    private readonly IDisposable _heldLock;
    private readonly ILogger _logger;
    private readonly DataFile _data;
    private readonly JournalWriter? _journal;
    private readonly FreeSpaceMap _freeSpace;
    // Pages verified as tree or bitmap pages, and overflow runs verified as values (by their first page), kept
    // apart so that a damaged reference cannot borrow one kind's verification for the other.
    private readonly VerifiedPages _verified = new();
    private readonly VerifiedPages _verifiedValues = new();
    private readonly ReaderTable _readers;
    private readonly PageBufferPool _pool;
    private readonly NativeBuffer _scratch;
    // Every commit, local or replicated, goes through it; it owns the write lock and the published snapshot.
    private readonly CommitPipeline _commits;
    private readonly AsyncCommits _asyncCommits;
    private readonly Checkpointer? _checkpointer;
    // The start of the new session, with the end of a recovery (FinishRecovery), left to the thread pool or the
    // first that needs it; null when the open started the session itself (or has no journal).
    private readonly QueuedWork? _recovering;
    // Write transactions and replication applies in progress; readers are counted by their reader slots.
    private int _openTransactions;
    private int _disposeRequested;
    private int _closed;
    private readonly WriteFailure _writeFailure = new();

    /// <remarks>
    /// Opening, in order: the options checked, the directory locked, the files opened (and a crashed session
    /// replayed), the free-space map loaded, then for a journaled environment a new journal session and its
    /// checkpointer. Anything that fails gives back what was taken.
    /// </remarks>
    private StorageEnvironment(StorageEnvironmentOptions options)
    {
        ValidateOptions(options);
        _options = options;
        _logger = (options.LoggerFactory ?? NullLoggerFactory.Instance).CreateLogger("StorageEngine");
        _fileSystem = options.FileSystem ?? (options.Durability == DurabilityMode.InMemory ? new MemoryFileSystem(simulatesPowerLoss: false) : new OsFileSystem());
        Directory = ResolveDirectory(options, _fileSystem);
        string lockFile = Path.Combine(Directory, EnvironmentFiles.LockFileName);
        (_lock, _heldLock) = LockDirectory(lockFile);
        EnvironmentFiles.Opened? opened = null;
        try
        {
            opened = OpenFiles(lockFile);
            Header = opened.Header;
            PageSize = opened.Header.PageSize;
            MaxKeySize = BTree.MaxKeySizeFor(PageSize);
            _data = new DataFile(opened.DataFile, PageSize, opened.State.PageCount, options.ReadAhead);
            _freeSpace = new FreeSpaceMap(PageSize);
            _readers = new ReaderTable(options.MaxReaders);
            // Enough single pages for twice what one checkpoint interval's commits leave in memory (see
            // CommitPipeline's limit of unwritten pages): a checkpoint hands back all it wrote when it ends, while the
            // commits that ran during it took as many again. With room for one interval only, the pool freed the
            // surplus at each checkpoint and the writer allocated it anew (malloc and free at 7% of 1-put updates
            // on W4's tree).
            long checkpointMemory = CheckpointMemory.ThresholdFor(options);
            _pool = new PageBufferPool(PageSize, 4 * Math.Min(checkpointMemory, 128L << 20));
            _scratch = new NativeBuffer(BTree.ScratchSizeFor(PageSize));
            _commits = new CommitPipeline(new Snapshot(opened.State, _data.View, opened.NextJournalFile), _data, _pool, _freeSpace,
                _verified, _verifiedValues, _writeFailure, this, options.UnwrittenPagesLimit ?? CommitPipeline.DefaultUnwrittenLimit(checkpointMemory),
                options.ValuesInPlaceFrom ?? CommitPipeline.DefaultValuesInPlaceFrom);
            _asyncCommits = new AsyncCommits(_commits, ExitTransaction);
            LoadFreeSpace(opened);
            if (options.Durability != DurabilityMode.InMemory && !options.ReadOnly)
            {
                long sessionId = EnvironmentFiles.NewSessionId();
                _journal = OpenJournal(opened, sessionId);
                _recovering = opened.SessionPending ? FinishRecoveryInBackground(opened, sessionId) : StartSession(opened, sessionId);
                _checkpointer = new Checkpointer(this, options.CheckpointThreshold, checkpointMemory, options.CheckpointInterval, _logger);
                _commits.UseJournal(_journal, _checkpointer);
                _freeSpace.WaitingLimit = Math.Max(Math.Min(checkpointMemory, long.MaxValue / 4) * 4, 1L << 20) / PageSize;
                _freeSpace.MakeReusable = CheckpointForReuse;
            }
            EnvironmentGauges.Register(this);
            EngineLog.EnvironmentOpened(_logger, Directory, opened.State.TransactionId, opened.State.PageCount, options.Durability);
        }
        catch
        {
            _checkpointer?.Dispose();
            WaitForRecoveryEnd();
            _journal?.Dispose();
            if (_data is not null) _data.Dispose();
            else opened?.DataFile.Dispose();
            _pool?.Dispose();
            _scratch?.Free();
            _lock.Dispose();
            _heldLock.Dispose();
            throw;
        }
    }

    /// <summary>Opens (creating if needed) the environment described by <paramref name="options"/>, recovering it after a crash.</summary>
    /// <exception cref="EnvironmentLockedException">Another process has it open.</exception>
    /// <exception cref="CorruptionException">Its files are damaged or are not an environment's files.</exception>
    public static StorageEnvironment Open(StorageEnvironmentOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var copy = options.Clone();
        try
        {
            return new StorageEnvironment(copy);
        }
        catch (Exception e) when (IsDiskFull(e) && GiveBackSpareJournalFiles(copy))
        {
            // The spare journal files are the engine's own reserve: a recovery must not fail for want of the space
            // they hold. They are gone now; the open starts again from the unchanged header.
            return new StorageEnvironment(copy);
        }
    }

    /// <summary>Opens (creating if needed) the environment in <paramref name="path"/> with default options.</summary>
    public static StorageEnvironment Open(string path) => Open(new StorageEnvironmentOptions { Path = path });

    /// <summary>Creates an environment that lives in memory only.</summary>
    public static StorageEnvironment CreateInMemory() => Open(new StorageEnvironmentOptions { Durability = DurabilityMode.InMemory });

    /// <summary>The directory of the environment's files.</summary>
    public string Directory { get; }

    /// <summary>Bytes per page.</summary>
    public int PageSize { get; }

    /// <summary>Longest key, in bytes.</summary>
    public int MaxKeySize { get; }

    /// <summary>What a returned commit promises.</summary>
    public DurabilityMode Durability => _options.Durability;

    /// <summary>Id of the last committed transaction.</summary>
    public long LastCommittedTransactionId => _commits.Published.TransactionId;

    internal DataFileHeader Header { get; private set; }

    internal ILogger Logger => _logger;

    internal IFileSystem FileSystem => _fileSystem;

    internal Snapshot CurrentSnapshot => _commits.Published;

    internal FreeSpaceMap FreeSpace => _freeSpace;

    /// <summary>The read operations running now, per thread: what a close waits out before it releases the memory.</summary>
    internal ReadActivities ReadActivities { get; } = new();

    /// <summary>The writer's memory for choosing the hot tree; under the write lock.</summary>
    internal HotTreeHints HotTreeHints { get; } = new();

    /// <summary>Starts a read transaction on the latest committed snapshot. It never blocks and is never blocked by the writer.</summary>
    public ReadTransaction BeginRead()
    {
        // A reader is counted by its slot alone, not by _openTransactions: a counter every reader increments
        // would be one cache line bouncing between all reading cores.
        var snapshot = _commits.Published;
        int slot = _readers.Register(snapshot.TransactionId);
        // Announce, then check that the snapshot is still current: the writer either sees the announcement
        // or published after it, in which case the reader moves to the newer snapshot.
        while (true)
        {
            var latest = _commits.Published;
            if (ReferenceEquals(latest, snapshot)) break;
            snapshot = latest;
            _readers.Update(slot, snapshot.TransactionId);
        }
        // Registered (a full fence), then checked: Dispose either sees this slot or this reader sees Dispose.
        if (IsDisposed)
        {
            EndRead(slot);
            ThrowIfDisposed();
        }
        var pages = snapshot.ReadPages ?? snapshot.ShareReadPages(PageSourceFor(snapshot));
        return new ReadTransaction(this, snapshot, pages, slot);
    }

    /// <summary>Whether the environment is open and accepts writes now (see <see cref="EnvironmentHealth"/>).</summary>
    public EnvironmentHealth GetHealth() => EnvironmentHealth.Of(this, _writeFailure.Exception);

    internal EnvironmentGaugeReading ReadGauges() => new(_commits.Published.TransactionId, _commits.Published.State.PageCount, _freeSpace.FreePages, _data.File.Length, _readers.Count, _readers.Oldest(), _journal?.WriteCount ?? 0, _journal?.BytesWritten ?? 0);

    private SnapshotPageSource PageSourceFor(Snapshot snapshot) => new(snapshot, _verified, _verifiedValues, PageSize, _data.Path, _commits.Unwritten);

    private unsafe PageWriter NewPageWriter(Snapshot snapshot, SnapshotPageSource source, long transactionId) =>
        new(snapshot, source, _commits.Pending, _freeSpace, _pool, _scratch.Pointer, transactionId);

    internal void EndRead(int slot)
    {
        _readers.Release(slot);
        if (IsDisposed)
        {
            if (Volatile.Read(ref _closeFinished) != 0) ReleaseMemoryIfUnread();
            else CloseIfIdle();
        }
    }

    /// <summary>Sizes and counters of the environment now.</summary>
    public EnvironmentStatistics GetStatistics()
    {
        ThrowIfDisposed();
        var snapshot = _commits.Published;
        int journalFiles = 0;
        long journalBytes = 0;
        if (_journal is not null || IsReadOnly)
        {
            foreach (var name in _fileSystem.ListFiles(Directory))
            {
                if (!JournalFileNames.IsJournalFile(name)) continue;
                long length;
                try
                {
                    // Existing: a file deleted since the listing (retired by a checkpoint, taken by a switch, a failed
                    // spare cleaned up) must not be made again, empty, by looking at it.
                    using var file = _fileSystem.Open(Path.Combine(Directory, name), StorageFileMode.Buffered | StorageFileMode.Existing);
                    length = file.Length;
                }
                catch (FileNotFoundException)
                {
                    continue;
                }
                journalFiles++;
                journalBytes += length;
            }
        }
        return new EnvironmentStatistics
        {
            PageSize = PageSize,
            PageCount = snapshot.State.PageCount,
            FreePages = _freeSpace.FreePages,
            DataFileBytes = _data.File.Length,
            JournalFiles = journalFiles,
            JournalBytes = journalBytes,
            LastCommittedTransactionId = snapshot.TransactionId,
            LastCheckpointTransactionId = Header.CheckpointTransactionId,
            OpenReaders = _readers.Count,
            JournalWrites = _journal?.WriteCount ?? 0,
            JournalRecords = _journal?.RecordCount ?? 0,
            JournalBytesWritten = _journal?.BytesWritten ?? 0,
        };
    }

    /// <summary>
    /// Walks every tree and the free-space map and reports each broken invariant: key order, page checksums,
    /// a page used twice, a page both used and free, a page neither used nor free. Walks the last committed
    /// snapshot; writers wait only while it copies the free-space bitmaps.
    /// </summary>
    public CheckReport Check() => Check(null, CancellationToken.None);

    private void EnterTransaction()
    {
        Interlocked.Increment(ref _openTransactions);
        if (Volatile.Read(ref _disposeRequested) != 0)
        {
            ExitTransaction();
            ThrowIfDisposed();
        }
    }

    internal void ExitTransaction()
    {
        if (LeaveTransaction()) CloseIfIdle();
    }

    /// <summary>
    /// Counts a transaction out like <see cref="ExitTransaction"/> without closing: true when it was the last one
    /// of a disposed environment, whose close the caller must then run (<see cref="CloseIfIdle"/>, or <see cref="CloseIfIdleAsync"/>).
    /// </summary>
    internal bool LeaveTransaction() => Interlocked.Decrement(ref _openTransactions) == 0 && IsDisposed;

    /// <summary><see cref="CloseIfIdle"/> on a pool thread: the close's blocking work (the final checkpoint's flushes) off the caller's thread.</summary>
    internal ValueTask CloseIfIdleAsync() => new(Task.Run(CloseIfIdle));

    /// <summary>
    /// Closes a disposed environment once no write transaction (nor replication apply) is open. Read transactions
    /// do not hold it open: one an application never disposed would keep the lock and skip the final checkpoint
    /// for the life of the process. They are ended by the close instead (see <see cref="Close"/>).
    /// </summary>
    internal void CloseIfIdle()
    {
        if (Volatile.Read(ref _openTransactions) == 0) Close(clean: true);
    }

    internal bool IsDisposed => Volatile.Read(ref _disposeRequested) != 0;

    internal void ThrowIfDisposed()
    {
        if (IsDisposed) ThrowDisposed();
    }

    private static void ThrowDisposed()
    {
        throw new ObjectDisposedException(nameof(StorageEnvironment), "The environment has been disposed.");
    }

    /// <summary>
    /// Closes the environment: a final checkpoint, then the files and the lock, so that it can be opened again.
    /// A write transaction still open keeps it alive until it ends. Read transactions still open (leaked, or
    /// running on other threads) do not: each of their calls throws <see cref="ObjectDisposedException"/> from
    /// now on, and the memory they read (the mapped file and the pages held for a checkpoint) stays mapped until
    /// the last of them is disposed, so that a read already under way finishes, or reads stale bytes, instead of
    /// faulting. Spans returned by any transaction must not be read once the environment is disposed and its
    /// transactions have ended: that memory is then released.
    /// </summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposeRequested, 1) != 0) return;
        CloseIfIdle();
    }

    /// <summary>After the final checkpoint no journal file is needed: tidying them may fail without harm.</summary>
    private void RetireJournalOnClose()
    {
        try
        {
            _journal!.RetireAllOnClose(_commits.Published.State.PageCount * PageSize);
        }
        catch (IOException e)
        {
            EngineLog.JournalRemovalAfterCloseFailed(_logger, e);
        }
    }
}
