using StorageEngine.Common;
using StorageEngine.Journal;
using StorageEngine.Paging;

namespace StorageEngine.Transactions;

/// <summary>
/// The one way a transaction becomes durable and visible. A local commit is prepared in memory under the write
/// lock (<see cref="Prepare"/>), then made durable by a group's single journal write and published in order
/// (<see cref="WaitDurable"/>); a transaction shipped from a primary takes the same group write through
/// <see cref="Apply"/>. Owns all commit state: the write-lock hand-off, the queue of prepared commits, their
/// pages until the data file holds them (<see cref="Pending"/>, <see cref="Unwritten"/>), and the published
/// snapshot.
/// </summary>
/// <remarks>
/// Split by stage: this file holds the state and the writer's hand-off; <c>CommitPipeline.Group.cs</c> the
/// group write; <c>CommitPipeline.DataWrites.cs</c> where committed pages go in the data file.
/// </remarks>
internal sealed partial class CommitPipeline
{
    /// <summary>Largest journal record (all pages one transaction changes).</summary>
    public const long MaxTransactionBytes = int.MaxValue - (64L << 20);

    /// <summary>Bytes of pages past which a commit group takes no further records (one at least).</summary>
    private const long MaxGroupBytes = 32L << 20;

    private readonly DataFile _data;
    private readonly PageBufferPool _pool;
    private readonly FreeSpaceMap _freeSpace;
    private readonly VerifiedPages _verified;
    private readonly VerifiedPages _verifiedValues;
    private readonly WriteFailure _failure;
    private readonly ICommitHost _host;
    private readonly int _pageSize;
    private readonly long _unwrittenLimit;
    private readonly long _valuesInPlaceFrom;
    private readonly SemaphoreSlim _writeLock = new(1, 1);
    private Snapshot _published;
    // Set once by UseJournal while the environment opens, before any commit.
    private JournalWriter? _journal;
    private Checkpointer? _checkpointer;
    private UnwrittenPages? _unwritten;

    public CommitPipeline(Snapshot published, DataFile data, PageBufferPool pool, FreeSpaceMap freeSpace, VerifiedPages verified,
        VerifiedPages verifiedValues, WriteFailure failure, ICommitHost host, long unwrittenLimit, long valuesInPlaceFrom = DefaultValuesInPlaceFrom)
    {
        _published = published;
        _data = data;
        _pool = pool;
        _freeSpace = freeSpace;
        _verified = verified;
        _verifiedValues = verifiedValues;
        _failure = failure;
        _host = host;
        _pageSize = data.PageSize;
        _unwrittenLimit = unwrittenLimit;
        _valuesInPlaceFrom = valuesInPlaceFrom;
    }

    /// <summary>
    /// Bytes of overflow values on new pages from which a Safe commit writes them into the data file, synced,
    /// before its record rather than through the journal (see <see cref="JournalPageRun.InPlace"/>): about where
    /// the extra sync of the data file costs less than writing the values twice (journal, then checkpoint).
    /// </summary>
    public const long DefaultValuesInPlaceFrom = 256 << 10;

    /// <summary>
    /// Memory for pages awaiting a checkpoint beyond which commits write theirs into the data file themselves:
    /// twice the checkpoint threshold, at least 64 MiB.
    /// </summary>
    public static long DefaultUnwrittenLimit(long checkpointThreshold) => Math.Max(2 * checkpointThreshold, 64L << 20);

    /// <summary>
    /// Commits go through <paramref name="journal"/> from now on, their pages held for the checkpoints that
    /// <paramref name="checkpointer"/> runs. Without it (in memory, read-only) a commit writes its pages into
    /// the data file itself. Called once, while the environment opens.
    /// </summary>
    public void UseJournal(JournalWriter journal, Checkpointer checkpointer)
    {
        _journal = journal;
        _checkpointer = checkpointer;
        _unwritten = new UnwrittenPages(() => Published.TransactionId);
    }

    /// <summary>The last durable commit, which new readers see.</summary>
    public Snapshot Published => Volatile.Read(ref _published);

    /// <summary>Pages of prepared commits not yet durable or not yet released, as the writer sees them; under the write lock.</summary>
    public PendingPages Pending { get; } = new();

    /// <summary>Committed pages held in memory for the next checkpoint; null without a journal.</summary>
    public UnwrittenPages? Unwritten => _unwritten;

    /// <summary>Bytes of committed pages held in memory for the next checkpoint.</summary>
    public long UnwrittenBytes => _unwritten?.Bytes ?? 0;

    /// <summary>A writer is on its way (waiting for the write lock or holding it): a group leader may wait for it to join.</summary>
    public void WriterArriving() => Interlocked.Increment(ref _writersInFlight);

    /// <summary>Takes the write lock at once if it is free.</summary>
    public bool TryEnterWriter() => _writeLock.Wait(0);

    /// <summary>Waits up to <paramref name="timeout"/> for the write lock.</summary>
    public bool EnterWriter(TimeSpan timeout) => _writeLock.Wait(timeout);

    /// <summary>Waits up to <paramref name="timeout"/> for the write lock without blocking a thread.</summary>
    public Task<bool> EnterWriterAsync(TimeSpan timeout, CancellationToken cancellationToken) => _writeLock.WaitAsync(timeout, cancellationToken);

    /// <summary>A writer that arrived leaves, holding the write lock (<paramref name="locked"/>) or not.</summary>
    public void WriterLeft(bool locked)
    {
        Interlocked.Decrement(ref _writersInFlight);
        if (locked) _writeLock.Release();
    }

    /// <summary>
    /// Under the write lock, before a writer starts: frees the buffers of commits the data file now holds and of
    /// held pages no reader can see any more, and returns the state the writer starts from: the last prepared
    /// commit, durable or not (readers stay on the last durable one).
    /// </summary>
    public Snapshot PrepareWriter(ReaderTable readers)
    {
        Pending.ReleaseCompleted(_pool);
        _unwritten?.ReleaseRetired(readers, Pending.OldestTransactionId, _pool);
        var published = Published;
        return Pending.Latest is { } latest ? new Snapshot(latest.State, _data.View, published.JournalFileNumber) : published;
    }

    /// <summary>Frees every page buffer the pipeline holds (on close, once nobody reads them).</summary>
    public void ReleaseAll()
    {
        Pending.ReleaseAll(_pool);
        _unwritten?.ReleaseAll(_pool);
    }

    /// <summary>Bytes of the buffers of pages retired from memory and not yet freed, for tests.</summary>
    internal long RetiredBytes => _unwritten?.RetiredBytes ?? 0;

    /// <summary>Page buffers kept ready once commits pause (see <see cref="ReleaseIdleMemory"/>): enough to start the next burst without page faults.</summary>
    public const long IdleReadyBytes = 4L << 20;

    /// <summary>Buffers parked per hold of the write lock: a writer that arrives meanwhile waits for at most this many madvise calls.</summary>
    private const int IdleParkBatch = 1024;

    /// <summary>
    /// Once commits have paused and a checkpoint has written what they left in memory: frees the buffers of the
    /// pages no reader can reach any more, and gives the pool's memory beyond <see cref="IdleReadyBytes"/> back to
    /// the OS, so that an idle environment does not hold a burst's worth of buffers (a checkpoint's pages, and up to
    /// four checkpoint thresholds kept ready) that the page cache, and so reads of a data set near the memory
    /// limit, could use. Readers registered before the checkpoint retired its pages may still read them: they are
    /// waited for, up to <paramref name="readerWait"/> (see <see cref="UnwrittenPages.StartGrace"/>). Works only
    /// while no writer holds or wants the write lock, a batch of buffers per hold, so a writer waits for one batch
    /// at most. Returns true when it is done: no page is held or retired, and the pool is down to its floor.
    /// </summary>
    public bool ReleaseIdleMemory(ReaderTable readers, TimeSpan readerWait)
    {
        bool graceUnderWay;
        if (!_writeLock.Wait(0)) return false;
        try
        {
            Pending.ReleaseCompleted(_pool);
            // A commit still completing may retire entries at a snapshot newer than new readers take: next time.
            if (!Pending.IsEmpty) return false;
            _unwritten?.ReleaseRetired(readers, Pending.OldestTransactionId, _pool);
            graceUnderWay = _unwritten?.StartGrace(readers) ?? false;
        }
        finally
        {
            _writeLock.Release();
        }
        // Polled with sleeps, not spun: readers may be using every core. Still under way after the wait: a long
        // reader; what it may read stays for a later call.
        if (graceUnderWay)
        {
            var waited = System.Diagnostics.Stopwatch.StartNew();
            bool ended;
            while (!(ended = _unwritten!.GraceEnded(readers)) && waited.Elapsed < readerWait) Thread.Sleep(1);
            graceUnderWay = !ended;
        }
        for (bool first = true; ; first = false)
        {
            if (Volatile.Read(ref _writersInFlight) > 0 || !_writeLock.Wait(0)) return false;
            bool more;
            try
            {
                if (first && !graceUnderWay) _unwritten?.ReleaseRetired(readers, Pending.OldestTransactionId, _pool);
                more = _pool.ParkIdle(IdleReadyBytes, IdleParkBatch);
            }
            finally
            {
                _writeLock.Release();
            }
            // Done only when nothing is left: a checkpoint that ran alongside (the application's, or a writer's)
            // may still retire pages this pass never saw, and no later pass would run before the next commit.
            if (!more) return !graceUnderWay && (_unwritten?.IsSettled ?? true);
        }
    }

    /// <summary>Frees the buffers of completed commits now if no writer runs, rather than hold them until the next one.</summary>
    private void ReleaseCompletedIfIdle()
    {
        if (!_writeLock.Wait(0)) return;
        try
        {
            Pending.ReleaseCompleted(_pool);
        }
        finally
        {
            _writeLock.Release();
        }
    }
}
