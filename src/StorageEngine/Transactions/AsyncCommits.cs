namespace StorageEngine.Transactions;

/// <summary>
/// Asynchronous commits: the committing thread returns as soon as its transaction is committed in memory, and one
/// pool thread at a time waits for the journal, in the <see cref="CommitPipeline"/>, on behalf of every such commit.
/// </summary>
internal sealed class AsyncCommits(CommitPipeline pipeline, Action transactionEnded)
{
    private readonly object _asyncCommitLock = new();
    // Commits whose callers await them, in commit order (the order their groups complete in), under _asyncCommitLock.
    private readonly Queue<AsyncCommit> _asyncCommits = new();
    private bool _asyncDrainRunning;

    /// <summary>A commit and its task, in one object. Continuations run on the pool, never inline on the thread that completes the group.</summary>
    private sealed class AsyncCommit(PendingCommit commit) : TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)
    {
        public PendingCommit Commit { get; } = commit;
    }

    /// <summary>
    /// Returns a task that completes once <paramref name="commit"/> (queued by <see cref="CommitPipeline.Prepare"/>,
    /// its write lock released) is durable and published, after the transaction it still counts as open is ended.
    /// </summary>
    public Task CompleteAsync(PendingCommit commit)
    {
        var waiter = new AsyncCommit(commit);
        bool start;
        lock (_asyncCommitLock)
        {
            _asyncCommits.Enqueue(waiter);
            start = !_asyncDrainRunning;
            _asyncDrainRunning = true;
        }
        if (start) ThreadPool.UnsafeQueueUserWorkItem(static commits => commits.DrainAsyncCommits(), this, preferLocal: false);
        return waiter.Task;
    }

    /// <summary>
    /// Waits, as an ordinary committer would, for the oldest asynchronous commit not yet complete: the group that
    /// completes it takes every commit queued by then, and groups complete in commit order. Leading a group (or
    /// waiting for another committer's) blocks this one pool thread for a journal write; commits queued
    /// meanwhile are taken by the next round.
    /// </summary>
    private void DrainAsyncCommits()
    {
        while (true)
        {
            PendingCommit oldest;
            lock (_asyncCommitLock)
            {
                if (_asyncCommits.Count == 0)
                {
                    _asyncDrainRunning = false;
                    return;
                }
                oldest = _asyncCommits.Peek().Commit;
            }
            Exception? unexpected = null;
            try
            {
                pipeline.WaitDurable(oldest, spin: false);
            }
            catch (StorageException) when (oldest.IsCompleted)
            {
                // The commit's own failure, reported to each waiter below.
            }
            catch (Exception e)
            {
                unexpected = e;
            }
            FinishAsyncCommits(unexpected);
        }
    }

    /// <summary>
    /// Completes the tasks of the asynchronous commits that are complete, in order; after an unexpected failure
    /// of the wait itself, fails every one queued rather than leave a caller waiting forever.
    /// </summary>
    private void FinishAsyncCommits(Exception? unexpected)
    {
        while (true)
        {
            AsyncCommit waiter;
            lock (_asyncCommitLock)
            {
                if (_asyncCommits.Count == 0) return;
                if (unexpected is null && !_asyncCommits.Peek().Commit.IsCompleted) return;
                waiter = _asyncCommits.Dequeue();
            }
            var failure = waiter.Commit.IsCompleted ? waiter.Commit.Failure : unexpected;
            // The transaction ends before its caller resumes, so that a caller who awaits and then disposes the
            // environment finds it closed, its files free.
            transactionEnded();
            if (failure is null) waiter.SetResult();
            else waiter.SetException(CommitPipeline.CommitFailure(failure));
        }
    }
}
