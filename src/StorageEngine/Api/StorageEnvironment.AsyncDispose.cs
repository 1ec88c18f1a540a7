namespace StorageEngine;

// Asynchronous disposal: the close's blocking work (stopping the background checkpointer, which may be in the
// middle of a checkpoint, and the final checkpoint with its flushes) runs on a pool thread, not the caller's.
public sealed partial class StorageEnvironment : IAsyncDisposable
{
    /// <summary>
    /// Closes the environment like <see cref="Dispose"/>, without blocking the calling thread: the background
    /// checkpointer is stopped and the final checkpoint written and flushed on a thread-pool thread, and the
    /// returned task completes once the files and the lock are released (the environment can then be opened
    /// again). When a write transaction is still open, the environment closes as that transaction ends, as with
    /// <see cref="Dispose"/> (on the thread that ends it, or on a pool thread when it ends with
    /// <see cref="WriteTransaction.DisposeAsync"/>, whose task then completes once the environment is closed), and
    /// this task completes at once: waiting for it here would hang on a transaction that is never disposed. A second
    /// call, or a call after <see cref="Dispose"/>, completes at once.
    /// </summary>
    public ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposeRequested, 1) != 0) return ValueTask.CompletedTask;
        // CloseIfIdle closes only when no write transaction is open, and Close runs once whoever calls it: a
        // transaction that ends meanwhile and closes on its own thread leaves nothing for this call to do.
        return CloseIfIdleAsync();
    }
}
