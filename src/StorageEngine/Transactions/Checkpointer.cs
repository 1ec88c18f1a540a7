using Microsoft.Extensions.Logging;
using StorageEngine.Common;

namespace StorageEngine.Transactions;

/// <summary>
/// Runs checkpoints on a background thread: when the journal has grown by the threshold since the last one,
/// when the committed pages held in memory for it reach the memory threshold, when the pages freed since then
/// (which only a checkpoint makes reusable) come to a quarter of the data file or the memory threshold, when
/// commits have paused for a moment, or when the interval has passed with commits to checkpoint. Commits never
/// wait for it.
/// </summary>
internal sealed class Checkpointer : IDisposable
{
    /// <summary>The fewest freed bytes that ask for a checkpoint, however small the file.</summary>
    internal const long MinFreedTrigger = 4L << 20;

    private readonly ICheckpointTarget _target;
    // Journal bytes since the last checkpoint that trigger one (the Lazy loss bound and the replay length).
    private readonly long _threshold;
    // Bytes of pages held in memory for the checkpoint, or freed since the last one, that trigger one.
    private readonly long _memoryThreshold;
    private readonly TimeSpan _interval;
    private readonly ILogger _logger;
    private readonly AutoResetEvent _signal = new(false);
    // Made by StartIfQueued: creating a thread object costs an open several microseconds (and a finalizable
    // object) that an environment only read from never needs.
    private Thread? _thread;
    private long _journalBytes;
    private long _journalBytesAtCheckpoint;
    private long _freedBytes;
    // The freed bytes that ask for a checkpoint, for the file's size at the last commit (see OnPagesFreed).
    private long _freedTrigger;
    private long _lastCommit = System.Diagnostics.Stopwatch.GetTimestamp();
    private volatile bool _stopping;
    private volatile bool _spareWanted;
    // After a failed try (a full disk) the spare waits for the next checkpoint rather than each commit's request.
    private volatile bool _spareFailed;
    // Set with the signal by a checkpoint trigger, so that a wake-up for the journal's spare alone runs none.
    private int _checkpointWanted;
    // Where the thread is (see EnsureStarted); changed to Started or Stopped only under _startLock.
    private int _state;
    private const int NotStarted = 0, StartQueued = 1, Started = 2, Stopped = 3;
    private readonly object _startLock = new();
    private readonly Action<Action> _queueStart;
    // When the start was queued (or last failed): a commit that finds it still queued after StartPatience starts it.
    private long _startQueuedAt;

    /// <summary>
    /// How long a queued start may wait for a thread-pool thread before a commit starts the thread itself: a pool
    /// kept busy by blocking work would otherwise leave every checkpoint to the writers until it frees a thread.
    /// </summary>
    private static readonly TimeSpan StartPatience = TimeSpan.FromMilliseconds(100);

    /// <remarks>The thread starts with <see cref="EnsureStarted"/>, after the first commit's journal write.</remarks>
    /// <param name="target">The environment the checkpoints are run on.</param>
    /// <param name="threshold">Journal bytes since the last checkpoint that ask for the next one.</param>
    /// <param name="memoryThreshold">Bytes of held or freed pages that ask for one.</param>
    /// <param name="interval">The longest time between checkpoints while commits run.</param>
    /// <param name="logger">Where failures are reported.</param>
    /// <param name="queueStart">Runs the thread's start off the committing thread: the thread pool, unless a test holds it back.</param>
    public Checkpointer(ICheckpointTarget target, long threshold, long memoryThreshold, TimeSpan interval, ILogger logger, Action<Action>? queueStart = null)
    {
        _queueStart = queueStart ?? (start => ThreadPool.UnsafeQueueUserWorkItem(static start => start(), start, preferLocal: false));
        _target = target;
        _threshold = Math.Max(1, threshold);
        _memoryThreshold = Math.Max(1, memoryThreshold);
        _freedTrigger = _memoryThreshold;
        _interval = interval;
        _logger = logger;
    }

    /// <summary>
    /// Starts the thread if it has not started. Called after each group's journal write: until the first, there
    /// is nothing to checkpoint, and an open that starts no thread is faster, which a reader that opens, reads
    /// and closes pays every time. The start is handed to the thread pool: <see cref="Thread.Start()"/> waits
    /// until the new thread runs, which on an idle virtual machine is a wake-up of a halted core: medians of 0.4
    /// to 4.3 ms at different times of one day on a 2 vCPU machine, which in the first commit made creating a
    /// document store and its two indexes take up to three times as long. Commits never wait for a checkpoint, so
    /// a thread that starts a little later changes nothing else; a start the pool leaves waiting past
    /// <see cref="StartPatience"/> is made by the next commit, and one still waiting when there is work for the
    /// thread (a checkpoint asked for, a journal spare wanted) is made by the commit that asks
    /// (<see cref="StartForWork"/>).
    /// </summary>
    public void EnsureStarted()
    {
        int state = Volatile.Read(ref _state);
        if (state == NotStarted && Interlocked.CompareExchange(ref _state, StartQueued, NotStarted) == NotStarted)
        {
            Volatile.Write(ref _startQueuedAt, System.Diagnostics.Stopwatch.GetTimestamp());
            _queueStart(StartIfQueued);
        }
        else if (state == StartQueued && System.Diagnostics.Stopwatch.GetElapsedTime(Volatile.Read(ref _startQueuedAt)) > StartPatience)
        {
            StartIfQueued();
        }
    }

    /// <summary>
    /// Starts the thread if its start is still queued: on a pool thread, or on a commit that found it waiting too
    /// long. Never throws: a thread that cannot be made now (no memory) is tried again after
    /// <see cref="StartPatience"/>, and commits meanwhile checkpoint for themselves when they must.
    /// </summary>
    private void StartIfQueued()
    {
        // Another caller starting it, or a close under way: nothing to do here.
        if (!Monitor.TryEnter(_startLock)) return;
        try
        {
            if (_state != StartQueued) return;
            var thread = new Thread(Run) { IsBackground = true, Name = "StorageEngine checkpointer" };
            thread.Start();
            _thread = thread;
            Volatile.Write(ref _state, Started);
        }
        catch (Exception e) when (e is OutOfMemoryException or ThreadStartException)
        {
            Volatile.Write(ref _startQueuedAt, System.Diagnostics.Stopwatch.GetTimestamp());
            _logger.CheckpointerStartFailed(e);
        }
        finally
        {
            Monitor.Exit(_startLock);
        }
    }

    /// <summary>
    /// Starts the thread now, on the caller, unless it runs or is being started: a checkpoint or a spare is
    /// wanted, and it must not wait for a thread pool that may be busy with blocking work for seconds (a test
    /// host's is; a power-loss test counting on the background checkpoints then ended before its crash point).
    /// The first threshold an environment reaches thus costs its commit the thread's start once, as the first
    /// commit did before starts were queued; in the commits of a short-lived environment it never comes.
    /// </summary>
    private void StartForWork()
    {
        if (Volatile.Read(ref _state) == Started) return;
        Interlocked.CompareExchange(ref _state, StartQueued, NotStarted);
        StartIfQueued();
    }

    /// <summary>True once the thread is started (for tests).</summary>
    internal bool IsRunning => Volatile.Read(ref _state) == Started;

    /// <summary>Called after each commit with the journal's running byte count.</summary>
    public void OnCommit(long journalBytesWritten)
    {
        Volatile.Write(ref _journalBytes, journalBytesWritten);
        Volatile.Write(ref _lastCommit, System.Diagnostics.Stopwatch.GetTimestamp());
        if (journalBytesWritten - Volatile.Read(ref _journalBytesAtCheckpoint) >= _threshold) RequestCheckpoint();
    }

    /// <summary>
    /// Called when the journal has no spare file for its next switch: preparing one (writing its zeros) is this
    /// thread's work, so that the commit that fills the current file does not do it.
    /// </summary>
    public void OnJournalSpareWanted()
    {
        if (_spareWanted || _spareFailed) return;
        _spareWanted = true;
        StartForWork();
        _signal.Set();
    }

    /// <summary>Called after each commit group with the bytes of committed pages held in memory for the checkpoint.</summary>
    public void OnUnwrittenBytes(long bytes)
    {
        if (bytes >= _memoryThreshold) RequestCheckpoint();
    }

    /// <summary>
    /// Called (by the writer) with the bytes of pages a commit freed and the data file's size after it. Freed pages
    /// are reusable only after the next checkpoint, and until then the file grows by what the writer allocates
    /// instead: a checkpoint is asked for once they come to a quarter of the file (at least
    /// <see cref="MinFreedTrigger"/>, at most the memory threshold), which bounds that growth by the file's size
    /// rather than by memory. With the memory threshold alone, a 130 MiB document store updated at length kept a
    /// 242 MiB file (199 MiB now). An eighth kept it at 165 MiB but checkpointed random inserts (W2) so often that
    /// they lost a fifth of their rate; a quarter leaves them as they were.
    /// </summary>
    public void OnPagesFreed(long bytes, long fileBytes)
    {
        long trigger = FreedTrigger(fileBytes, _memoryThreshold);
        Volatile.Write(ref _freedTrigger, trigger);
        if (bytes > 0 && Interlocked.Add(ref _freedBytes, bytes) >= trigger) RequestCheckpoint();
    }

    /// <summary>Freed bytes since the last checkpoint that ask for the next one in a file of <paramref name="fileBytes"/>.</summary>
    internal static long FreedTrigger(long fileBytes, long memoryThreshold) =>
        Math.Min(memoryThreshold, Math.Max(MinFreedTrigger, fileBytes / 4));

    /// <remarks>
    /// Only the request that raises the flag signals: while a checkpoint runs, every commit finds a threshold
    /// still reached, and setting the event each time cost each of them a call into the runtime's event code.
    /// </remarks>
    private void RequestCheckpoint()
    {
        if (Interlocked.Exchange(ref _checkpointWanted, 1) != 0) return;
        StartForWork();
        _signal.Set();
    }

    /// <summary>
    /// How long commits must pause before a checkpoint writes what they left in memory: readers then find every
    /// page in the mapping again. A tenth of the interval, at least 100 ms: a long
    /// interval asks for rare checkpoints, and a pause of a second must not override it.
    /// </summary>
    private TimeSpan IdleDelay => TimeSpan.FromTicks(Math.Max(_interval.Ticks / 10, TimeSpan.TicksPerMillisecond * 100));

    private void Run()
    {
        long lastCheckpoint = System.Diagnostics.Stopwatch.GetTimestamp();
        var idleDelay = IdleDelay;
        bool failed = false;
        // The last commit whose pause the idle writer's memory was given back after.
        long releasedAfter = 0;
        while (!_stopping)
        {
            _signal.WaitOne(idleDelay < _interval ? idleDelay : _interval);
            if (_stopping) break;
            if (_spareWanted) PrepareJournal();
            bool signaled = Interlocked.Exchange(ref _checkpointWanted, 0) != 0;
            long bytes = Volatile.Read(ref _journalBytes);
            if (bytes == Volatile.Read(ref _journalBytesAtCheckpoint))
            {
                if (!failed) ReleaseIdleMemory(idleDelay, ref releasedAfter);
                continue;
            }
            // After a failure only the interval retries, so that a broken disk is not logged every idle delay.
            bool idle = !failed && System.Diagnostics.Stopwatch.GetElapsedTime(Volatile.Read(ref _lastCommit)) >= idleDelay;
            if (!signaled && !idle && System.Diagnostics.Stopwatch.GetElapsedTime(lastCheckpoint) < _interval) continue;
            lastCheckpoint = System.Diagnostics.Stopwatch.GetTimestamp();
            try
            {
                long freed = Volatile.Read(ref _freedBytes);
                _target.Checkpoint();
                Interlocked.Add(ref _freedBytes, -freed);
                Volatile.Write(ref _journalBytesAtCheckpoint, bytes);
                // Commits while it ran still reported the pages it was writing as held in memory, and asked for the
                // next one at once: a second checkpoint a few milliseconds later, with a sync of its own. A request
                // dropped here that still holds is made again by the next commit.
                if (!Due()) Volatile.Write(ref _checkpointWanted, 0);
                failed = false;
                if (_spareFailed) PrepareJournal();
                ReleaseIdleMemory(idleDelay, ref releasedAfter);
            }
            catch (Exception e)
            {
                // The journal keeps every commit until a checkpoint succeeds, so nothing is lost; try again later.
                failed = true;
                _logger.BackgroundCheckpointFailed(e);
            }
        }
    }

    /// <summary>True when a threshold is reached: journal written, pages freed, or pages held in memory since the last checkpoint.</summary>
    private bool Due() =>
        Volatile.Read(ref _journalBytes) - Volatile.Read(ref _journalBytesAtCheckpoint) >= _threshold
        || Volatile.Read(ref _freedBytes) >= Volatile.Read(ref _freedTrigger)
        || _target.UnwrittenBytes >= _memoryThreshold;

    /// <summary>
    /// Once per pause of the commits (none for <paramref name="idleDelay"/>), after the checkpoint that wrote what
    /// they left: the memory of the writer's idle buffers goes back (see <see cref="ICheckpointTarget.ReleaseIdleMemory"/>).
    /// </summary>
    private void ReleaseIdleMemory(TimeSpan idleDelay, ref long releasedAfter)
    {
        long lastCommit = Volatile.Read(ref _lastCommit);
        if (lastCommit == releasedAfter || System.Diagnostics.Stopwatch.GetElapsedTime(lastCommit) < idleDelay) return;
        try
        {
            if (_target.ReleaseIdleMemory()) releasedAfter = lastCommit;
        }
        catch (Exception e)
        {
            // Nothing is lost: the buffers stay in the pool. This thread must outlive any such failure.
            releasedAfter = lastCommit;
            _logger.IdleMemoryReleaseFailed(e);
        }
    }

    private void PrepareJournal()
    {
        _spareWanted = false;
        _spareFailed = false;
        try
        {
            _target.PrepareJournal();
        }
        catch (Exception e)
        {
            _spareFailed = true;
            // A commit that finds no spare preallocates its file itself: slower, nothing lost.
            _logger.SpareJournalFileFailed(e);
        }
    }

    public void Dispose()
    {
        _stopping = true;
        _signal.Set();
        // Waits for a start under way; after this no commit and no queued start starts the thread.
        int state;
        lock (_startLock)
        {
            state = _state;
            Volatile.Write(ref _state, Stopped);
        }
        if (state == Started) _thread!.Join();
        _signal.Dispose();
    }
}
