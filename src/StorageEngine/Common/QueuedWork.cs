namespace StorageEngine.Common;

/// <summary>
/// Work handed to the thread pool that whoever needs its result first runs on their own thread if the pool has
/// not started it yet: starting it costs an open no thread of its own (creating one took a third of a clean
/// reopen's time), and an application that keeps every pool thread busy still never waits for the pool. Work made
/// with <see cref="Deferred"/> is not handed to the pool at all: it runs when first needed, or never.
/// </summary>
internal sealed class QueuedWork
{
    private const int NotStarted = 0;
    private const int Started = 1;
    private const int Abandoned = 2;

    private readonly Action _work;
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _state;

    private QueuedWork(Action work, bool deferred)
    {
        _work = work;
        IsDeferred = deferred;
    }

    /// <summary>Queues <paramref name="work"/> to the thread pool.</summary>
    public static QueuedWork Start(Action work)
    {
        var queued = new QueuedWork(work, deferred: false);
        ThreadPool.UnsafeQueueUserWorkItem(static state => ((QueuedWork)state!).RunHereIfNotStarted(), queued);
        return queued;
    }

    /// <summary>Work that runs only when something needs it (<see cref="RunHereIfNotStarted"/>, <see cref="RunOrWait"/>).</summary>
    public static QueuedWork Deferred(Action work) => new(work, deferred: true);

    /// <summary>True for work made with <see cref="Deferred"/>.</summary>
    public bool IsDeferred { get; }

    /// <summary>True once <see cref="TryAbandon"/> has made sure the work never runs.</summary>
    public bool IsAbandoned => Volatile.Read(ref _state) == Abandoned;

    /// <summary>
    /// Makes sure deferred work never runs, unless it has started: true when it had not (it is then complete, and
    /// running it later does nothing), false when it has started or ended, or was handed to the pool.
    /// </summary>
    public bool TryAbandon()
    {
        if (!IsDeferred || Interlocked.CompareExchange(ref _state, Abandoned, NotStarted) != NotStarted) return false;
        _done.SetResult();
        return true;
    }

    /// <summary>Completes when the work has ended; faulted with its exception when it threw.</summary>
    public Task Completion => _done.Task;

    /// <summary>Runs the work on this thread unless it has started elsewhere.</summary>
    public void RunHereIfNotStarted()
    {
        if (Interlocked.CompareExchange(ref _state, Started, NotStarted) != NotStarted) return;
        try
        {
            _work();
            _done.SetResult();
        }
        catch (Exception e)
        {
            _done.SetException(e);
        }
    }

    /// <summary>Runs the work here unless it has started elsewhere, then waits for it to end; throws what it threw.</summary>
    public void RunOrWait()
    {
        RunHereIfNotStarted();
        _done.Task.GetAwaiter().GetResult();
    }
}
