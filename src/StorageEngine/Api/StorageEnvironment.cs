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

    /// <summary>Largest journal record (all pages one transaction changes).</summary>
    private const long MaxTransactionBytes = int.MaxValue - (64L << 20);

    /// <summary>Bytes of pages past which a commit group takes no further records (one at least).</summary>
    private const long MaxGroupBytes = 32L << 20;

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
    private readonly SemaphoreSlim _writeLock = new(1, 1);
    private readonly List<ReadOnlyMemory<byte>> _gather = new();
    // Group commit: commits queue here (under _groupLock) until a committing thread, the leader of the
    // moment, writes all of them with one journal write. _pending (under the write lock) keeps their pages
    // readable by the next writer until they are in the data file.
    private readonly object _groupLock = new();
    private readonly List<PendingCommit> _queue = new();
    private readonly List<PendingCommit> _group = new();
    private readonly List<JournalEntry> _groupEntries = new();
    private readonly PendingPages _pending = new();
    private bool _groupWriting;
    // Write transactions begun (or waiting for the lock) and not yet committed or ended, and the committers
    // expected in a group (the last group's size plus those that queued while it was written): a leader gives
    // them a moment to join its group, up to about one journal write's time (a running average, in Stopwatch
    // ticks). Counting those that queued during the write matters: two threads can otherwise settle into
    // alternating groups of one, each leading while the other builds its next transaction, so that every
    // commit waits for two journal writes and two threads commit no faster than one.
    private int _writersInFlight;
    private int _queued;
    private int _expectedCommitters;
    private long _journalWriteTicks;
    // The last write transaction's page tables, empty, for the next one.
    private PageWriterTables? _spareTables;
    private readonly Checkpointer? _checkpointer;
    // Committed pages the next checkpoint writes to the data file (null without a journal: pages go there at commit).
    private readonly UnwrittenPages? _unwritten;
    private Snapshot _current;
    // The background end of a recovery (FinishRecovery), or null when the open replayed nothing.
    private readonly Task? _recovering;
    // Write transactions and replication applies in progress; readers are counted by their reader slots.
    private int _openTransactions;
    private int _disposeRequested;
    private int _closed;
    // The failure that stopped writes, and what failed (a commit's journal write, a checkpoint, ...).
    private Exception? _writeFailure;
    private string? _writeFailureSource;
    private readonly object _writeFailureLock = new();
    private long _checkpointedTransactionId;

    private StorageEnvironment(StorageEnvironmentOptions options)
    {
        _options = options;
        _logger = (options.LoggerFactory ?? NullLoggerFactory.Instance).CreateLogger("StorageEngine");
        bool inMemory = options.Durability == DurabilityMode.InMemory;
        _fileSystem = options.FileSystem ?? (inMemory ? new MemoryFileSystem(simulatesPowerLoss: false) : new OsFileSystem());
        string directory = ResolveDirectory(options, _fileSystem);
        if (!PageSizes.IsValid(options.PageSize))
            throw new ArgumentOutOfRangeException(nameof(options), options.PageSize, $"PageSize must be a power of two from {PageSizes.Min} to {PageSizes.Max}.");
        if (options.MaxReaders < 1) throw new ArgumentOutOfRangeException(nameof(options), options.MaxReaders, "MaxReaders must be positive.");
        if (options.JournalFileSize < 1 << 20) throw new ArgumentOutOfRangeException(nameof(options), options.JournalFileSize, "JournalFileSize must be at least 1 MiB.");

        Directory = directory;
        if (options.ReadOnly) ValidateReadOnlyOpen(options, directory);
        else _fileSystem.CreateDirectory(directory);
        string lockFile = Path.Combine(directory, EnvironmentFiles.LockFileName);
        try
        {
            _lock = options.ReadOnly ? _fileSystem.AcquireSharedLock(lockFile) : _fileSystem.AcquireLock(lockFile);
        }
        catch (EnvironmentLockedException e)
        {
            throw new EnvironmentLockedException(lockFile, HeldLocks.IsHeld(_fileSystem, lockFile), e);
        }
        _heldLock = HeldLocks.Record(_fileSystem, lockFile);
        EnvironmentFiles.Opened? opened = null;
        try
        {
            opened = EnvironmentFiles.OpenOrCreate(_fileSystem, directory, options.PageSize, useJournal: !inMemory,
                lazy: options.Durability == DurabilityMode.Lazy, _logger, options.ReadOnly, options.AcceptJournalLoss,
                file =>
                {
                    if (!file.TryLockEnvironment(shared: options.ReadOnly, out string? holder))
                        throw EnvironmentLockedException.ForDataFile(file.Path, lockFile, options.ReadOnly, holder);
                });
            Header = opened.Header;
            PageSize = opened.Header.PageSize;
            _data = new DataFile(opened.DataFile, PageSize, opened.State.PageCount);
            _freeSpace = new FreeSpaceMap(PageSize);
            _readers = new ReaderTable(options.MaxReaders);
            // Enough single pages for twice what one checkpoint interval's commits leave in memory (see
            // UnwrittenLimit): a checkpoint hands back all it wrote when it ends, while the commits that ran
            // during it took as many again. With room for one interval only, the pool freed the surplus at each
            // checkpoint and the writer allocated it anew (malloc and free at 7% of 1-put updates on W4's tree).
            _pool = new PageBufferPool(PageSize, 4 * Math.Min(options.CheckpointThreshold, 128L << 20));
            _scratch = new NativeBuffer(BTree.ScratchSizeFor(PageSize));
            MaxKeySize = BTree.MaxKeySizeFor(PageSize);
            _current = new Snapshot(opened.State, _data.View, opened.NextJournalFile);
            var loader = PageSourceFor(_current);
            var bitmaps = NewPageWriter(_current, loader, 0);
            _freeSpace.Load(bitmaps, opened.State.PageCount);
            // Only a lost Lazy tail legitimately leaves the bitmaps ahead of the trees, and the rebuild below fixes that.
            if (!opened.NeedsFreeSpaceRebuild && _freeSpace.FirstFreePast(bitmaps, opened.State.PageCount, out long bitmapPage) is var past and >= 0)
                throw loader.Corruption(bitmapPage, $"the free-space bitmap marks page {past} free, past the {opened.State.PageCount} pages of the file: it is newer than the recovered transaction {opened.State.TransactionId} (journal records lost?).");
            _checkpointedTransactionId = opened.State.TransactionId;
            if (opened.NeedsFreeSpaceRebuild) RebuildFreeSpace();
            if (!inMemory && !options.ReadOnly)
            {
                // The new session's first journal file exists before the header names the session (see
                // EnvironmentFiles.Opened): now, or after a replay once the replayed pages are synced, in the
                // background (the first journal write waits for that).
                long sessionId = EnvironmentFiles.NewSessionId();
                _journal = new JournalWriter(_fileSystem, directory, Header.EnvironmentId, sessionId, PageSize, options.JournalFileSize,
                    options.Durability == DurabilityMode.Safe, opened.NextJournalFile, _logger, openLater: opened.SessionPending);
                if (!opened.SessionPending)
                {
                    Header = EnvironmentFiles.StartSession(_data.File, Header, opened.State, opened.NextJournalFile,
                        options.Durability == DurabilityMode.Lazy, sessionId);
                }
                if (opened.SessionPending)
                {
                    // Its own thread, not the thread pool's: the first commit waits for it, and an application
                    // that keeps the pool's threads busy must not hold up the environment's first write.
                    _recovering = Task.Factory.StartNew(
                        () => FinishRecovery(opened.State, opened.NextJournalFile, sessionId, options.Durability == DurabilityMode.Lazy),
                        CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
                }
                else
                {
                    int retired = _journal.RetireBelow(opened.NextJournalFile);
                    if (retired > 0) EngineLog.JournalFilesRetiredAfterOpening(_logger, retired);
                }
                _unwritten = new UnwrittenPages(() => Volatile.Read(ref _current).TransactionId);
                _checkpointer = new Checkpointer(this, options.CheckpointThreshold, options.CheckpointInterval, _logger);
                _freeSpace.WaitingLimit = Math.Max(Math.Min(options.CheckpointThreshold, long.MaxValue / 4) * 4, 1L << 20) / PageSize;
                _freeSpace.MakeReusable = CheckpointForReuse;
            }
            EnvironmentGauges.Register(this);
            EngineLog.EnvironmentOpened(_logger, directory, opened.State.TransactionId, opened.State.PageCount, options.Durability);
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
    public long LastCommittedTransactionId => Volatile.Read(ref _current).TransactionId;

    internal DataFileHeader Header { get; private set; }

    internal ILogger Logger => _logger;

    internal IFileSystem FileSystem => _fileSystem;

    internal Snapshot CurrentSnapshot => Volatile.Read(ref _current);

    internal FreeSpaceMap FreeSpace => _freeSpace;

    /// <summary>The writer's memory for choosing the hot tree; under the write lock.</summary>
    internal HotTreeHints HotTreeHints { get; } = new();

    /// <summary>Starts a read transaction on the latest committed snapshot. It never blocks and is never blocked by the writer.</summary>
    public ReadTransaction BeginRead()
    {
        // A reader is counted by its slot alone, not by _openTransactions: a counter every reader increments
        // would be one cache line bouncing between all reading cores.
        var snapshot = Volatile.Read(ref _current);
        int slot = _readers.Register(snapshot.TransactionId);
        // Announce, then check that the snapshot is still current: the writer either sees the announcement
        // or published after it, in which case the reader moves to the newer snapshot.
        while (true)
        {
            var latest = Volatile.Read(ref _current);
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

    /// <summary>
    /// Starts the write transaction, waiting up to <paramref name="timeout"/> (default
    /// <see cref="StorageEnvironmentOptions.WriteTimeout"/>) while another one runs.
    /// </summary>
    /// <exception cref="TimeoutException">Another write transaction stayed open longer than the timeout.</exception>
    /// <exception cref="InvalidOperationException">
    /// This thread already holds the write transaction: it began it with BeginWrite, and no other thread has used
    /// it since. Thrown once the transaction has stayed so for a moment (a transaction handed to another thread to
    /// commit is waited for), not after the whole timeout.
    /// </exception>
    public WriteTransaction BeginWrite(TimeSpan? timeout = null)
    {
        ThrowIfReadOnly("start a write transaction");
        ThrowIfReplicaWrite();
        EnterTransaction();
        Interlocked.Increment(ref _writersInFlight);
        bool locked = false;
        try
        {
            var wait = timeout ?? _options.WriteTimeout;
            locked = _writeLock.Wait(0) || WaitForWriteLock(wait);
            if (!locked) throw WriteLockTimeout(wait);
            var writer = CreateWriteTransaction();
            ClaimForFlow(writer);
            return writer;
        }
        catch
        {
            if (locked) _writeLock.Release();
            Interlocked.Decrement(ref _writersInFlight);
            ExitTransaction();
            throw;
        }
    }

    /// <summary>
    /// Starts the write transaction once the running one (if any) ends, without blocking a thread, waiting up to
    /// <see cref="StorageEnvironmentOptions.WriteTimeout"/>.
    /// </summary>
    /// <exception cref="TimeoutException">Another write transaction stayed open longer than the timeout.</exception>
    public async ValueTask<WriteTransaction> BeginWriteAsync(CancellationToken cancellationToken = default)
    {
        ThrowIfReadOnly("start a write transaction");
        ThrowIfReplicaWrite();
        EnterTransaction();
        Interlocked.Increment(ref _writersInFlight);
        bool locked = false;
        try
        {
            locked = await _writeLock.WaitAsync(_options.WriteTimeout, cancellationToken).ConfigureAwait(false);
            if (!locked) throw WriteLockTimeout(_options.WriteTimeout);
            return CreateWriteTransaction();
        }
        catch
        {
            if (locked) _writeLock.Release();
            Interlocked.Decrement(ref _writersInFlight);
            ExitTransaction();
            throw;
        }
    }

    private WriteTransaction CreateWriteTransaction()
    {
        ThrowIfWriteFailed();
        _pending.ReleaseCompleted(_pool);
        long oldest = OldestVisibleSnapshot();
        _unwritten?.ReleaseRetired(_readers, _pending.OldestTransactionId, _pool);
        ThrowIfWriteFailed();
        var published = Volatile.Read(ref _current);
        _data.ReleaseRetired(oldest);
        _freeSpace.ReleaseUpTo(FreedPagesReusableUpTo(oldest));
        // No checkpoint may begin meanwhile: one reading an older snapshot could still write it (see ReleaseYoung).
        // Without a journal none ever begins (_checkpointStarted stays 0), so every young page no reader sees is
        // released; skipping the call there leaked each page freed over a commit in flight.
        lock (_reuseGate) _freeSpace.ReleaseYoung(oldest, _checkpointStarted);
        // The writer starts from the last commit, durable or not; readers stay on the last durable one.
        var snapshot = _pending.Latest is { } latest ? new Snapshot(latest.State, _data.View, published.JournalFileNumber) : published;
        var source = PageSourceFor(snapshot);
        var pages = NewPageWriter(snapshot, source, snapshot.TransactionId + 1, Interlocked.Exchange(ref _spareTables, null));
        return new WriteTransaction(this, snapshot, pages);
    }

    /// <summary>
    /// Runs a checkpoint on the writer's thread when the data file would otherwise grow while many freed pages
    /// wait for one (see <see cref="FreeSpaceMap.MakeReusable"/>). A writer that outruns the background
    /// checkpoints, as one keeping commits in flight can, is slowed to their pace instead of growing the file by
    /// their lag. Returns whether pages may have become reusable.
    /// </summary>
    private bool CheckpointForReuse()
    {
        // Only when the checkpoint is what holds them back: not a reader, not commits still on their way to the journal.
        if (Volatile.Read(ref _checkpointedTransactionId) < OldestVisibleSnapshot())
        {
            try
            {
                CheckpointCore();
            }
            catch (Exception e) when (e is IOException or StorageException)
            {
                // The background checkpointer retries it and a failed write fails the commit; the file grows meanwhile.
                EngineLog.ReuseCheckpointFailed(_logger, e);
                return false;
            }
        }
        // Released here, not only when the next transaction begins: a background checkpoint that ended during this
        // transaction covers pages that still wait (with none run here, the file grew past them). Read again: a
        // reader may have begun meanwhile.
        long waiting = _freeSpace.WaitingPages;
        _freeSpace.ReleaseUpTo(FreedPagesReusableUpTo(OldestVisibleSnapshot()));
        return _freeSpace.WaitingPages < waiting;
    }

    /// <summary>
    /// The oldest snapshot a reader may hold now (the published one when no reader is older). The published
    /// snapshot is read before the readers: a reader registering after that read of the readers checks the
    /// current snapshot after registering (see <see cref="BeginRead"/>), so it holds one at least as new. Read the
    /// other way round, a commit published in between (group commits publish from other threads) let a reader
    /// registered meanwhile on an older snapshot go unseen.
    /// </summary>
    private long OldestVisibleSnapshot()
    {
        long published = Volatile.Read(ref _current).TransactionId;
        return Math.Min(_readers.Oldest(), published);
    }

    /// <summary>
    /// The newest transaction whose freed pages may be reused, given <paramref name="oldestVisible"/>. With a
    /// journal, a page freed after the last checkpoint must not be overwritten until one covers it: recovery may
    /// need it as the base of a journaled diff, and in Lazy mode a power loss can lose the records after the
    /// checkpoint while the page cache already wrote later pages.
    /// </summary>
    private long FreedPagesReusableUpTo(long oldestVisible) =>
        _journal is null ? oldestVisible : Math.Min(oldestVisible, Volatile.Read(ref _checkpointedTransactionId));

    /// <summary>Whether the environment is open and accepts writes now (see <see cref="EnvironmentHealth"/>).</summary>
    public EnvironmentHealth GetHealth() => EnvironmentHealth.Of(this, _writeFailure);

    internal EnvironmentGaugeReading ReadGauges() => new(Volatile.Read(ref _current).TransactionId, Volatile.Read(ref _current).State.PageCount, _freeSpace.FreePages, _data.File.Length, _readers.Count, _readers.Oldest(), _journal?.WriteCount ?? 0, _journal?.BytesWritten ?? 0);

    private void ThrowIfWriteFailed()
    {
        if (_writeFailure is not null) ThrowWriteFailed();
    }

    private void ThrowWriteFailed()
    {
        Exception failure;
        string source;
        lock (_writeFailureLock) (failure, source) = (_writeFailure!, _writeFailureSource!);
        throw new StorageException($"{source} failed ({failure.Message}); this environment accepts no more writes. Reopen it: recovery keeps every acknowledged commit.", failure);
    }

    /// <summary>
    /// Stops writes after <paramref name="failure"/> of <paramref name="source"/> (a phrase that begins a sentence:
    /// "A checkpoint"), which later writers are told. Keeps the first failure unless <paramref name="replace"/>.
    /// </summary>
    private void RecordWriteFailure(Exception failure, string source, bool replace = false)
    {
        lock (_writeFailureLock)
        {
            if (_writeFailure is not null && !replace) return;
            _writeFailureSource = source;
            _writeFailure = failure;
        }
    }

    private SnapshotPageSource PageSourceFor(Snapshot snapshot) => new(snapshot, _verified, _verifiedValues, PageSize, _data.Path, _unwritten);

    private unsafe PageWriter NewPageWriter(Snapshot snapshot, SnapshotPageSource source, long transactionId, PageWriterTables? tables = null) =>
        new(snapshot, source, _pending, _freeSpace, _pool, _scratch.Pointer, transactionId, tables);

    /// <summary>Keeps an ended write transaction's page tables for the next one (see <see cref="PageWriterTables"/>).</summary>
    internal void ReturnPageTables(PageWriterTables? tables)
    {
        if (tables is not null) Volatile.Write(ref _spareTables, tables);
    }

    internal void EndRead(int slot)
    {
        _readers.Release(slot);
        if (IsDisposed)
        {
            if (Volatile.Read(ref _closeFinished) != 0) ReleaseMemoryIfUnread();
            else CloseIfIdle();
        }
    }

    /// <summary>
    /// Writes every committed page to the data file durably, records that in the checkpoint header, and
    /// recycles the journal files that are no longer needed. Runs in the background on its own; call it to
    /// force one.
    /// </summary>
    public void Checkpoint()
    {
        ThrowIfDisposed();
        ThrowIfReadOnly("checkpoint");
        CheckpointCore();
    }

    /// <summary>Bytes of committed pages held in memory for the next checkpoint.</summary>
    internal long UnwrittenBytes => _unwritten?.Bytes ?? 0;

    private readonly object _checkpointLock = new();
    // Orders a checkpoint's choice of snapshot against the writer's early release of young freed pages.
    private readonly object _reuseGate = new();
    private long _checkpointStarted;
    private bool _filesClosed;

    /// <param name="closing">
    /// On a clean close the header points past every journal file, so the next open reads no journal at all.
    /// </param>
    internal void CheckpointCore(bool closing = false)
    {
        if (_journal is null) return;
        WaitForRecovery();
        lock (_checkpointLock)
        {
            if (_filesClosed) return;
            Snapshot snapshot;
            // Young freed pages written before this snapshot may be live in its state: none is released early from now on.
            lock (_reuseGate)
            {
                snapshot = Volatile.Read(ref _current);
                _checkpointStarted = snapshot.TransactionId;
            }
            if (snapshot.TransactionId == Header.CheckpointTransactionId && !closing) return;
            ThrowIfWriteFailed();
            long started = System.Diagnostics.Stopwatch.GetTimestamp();
            long journalFile = closing ? _journal.CurrentFileNumber + 1 : snapshot.JournalFileNumber;
            ArraySegment<KeyValuePair<long, UnwrittenPages.Entry>>? written = null;
            try
            {
                written = WriteUnwrittenPages(snapshot);
                _data.Flush();
                Header = EnvironmentFiles.WriteCheckpoint(_data.File, Header, snapshot.State, journalFile, clean: closing);
                // The data file holds them now; dropped before the checkpoint lets their freed pages be reused.
                if (written is { } collected) _unwritten!.Remove(collected);
            }
            catch (IOException e)
            {
                // After a failed sync Linux marks the dirty pages clean, so a later sync succeeds without them: only
                // the journal still holds them, and no later checkpoint may retire it. Writes stop until a reopen
                // replays the journal.
                RecordWriteFailure(e, "A checkpoint");
                throw;
            }
            finally
            {
                if (written is { } collected) _unwritten!.EndCollect(collected);
            }
            Volatile.Write(ref _checkpointedTransactionId, snapshot.TransactionId);
            int retired = _journal.RetireBelow(RetainJournalFrom(snapshot.JournalFileNumber));
            EngineInstruments.CheckpointCompleted(started, snapshot.TransactionId);
            EngineLog.CheckpointWritten(_logger, snapshot.TransactionId, System.Diagnostics.Stopwatch.GetElapsedTime(started).TotalMilliseconds, retired);
        }
    }

    /// <summary>Sizes and counters of the environment now.</summary>
    public EnvironmentStatistics GetStatistics()
    {
        ThrowIfDisposed();
        var snapshot = Volatile.Read(ref _current);
        int journalFiles = 0;
        long journalBytes = 0;
        if (_journal is not null || IsReadOnly)
        {
            foreach (var name in _fileSystem.ListFiles(Directory))
            {
                if (!name.StartsWith("journal", StringComparison.Ordinal)) continue;
                journalFiles++;
                using var file = _fileSystem.Open(Path.Combine(Directory, name), StorageFileMode.Buffered);
                journalBytes += file.Length;
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

    /// <summary>Background upkeep of the journal: keep a spare file ready.</summary>
    internal void PrepareJournal()
    {
        lock (_checkpointLock)
        {
            if (!_filesClosed) _journal?.EnsureSpareFile();
        }
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
        if (Interlocked.Decrement(ref _openTransactions) == 0 && IsDisposed) CloseIfIdle();
    }

    /// <summary>
    /// Closes a disposed environment once no write transaction (nor replication apply) is open. Read transactions
    /// do not hold it open: one an application never disposed would keep the lock and skip the final checkpoint
    /// for the life of the process. They are ended by the close instead (see <see cref="Close"/>).
    /// </summary>
    private void CloseIfIdle()
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
            _journal!.RetireAllOnClose(Volatile.Read(ref _current).State.PageCount * PageSize);
        }
        catch (IOException e)
        {
            EngineLog.JournalRemovalAfterCloseFailed(_logger, e);
        }
    }
}
