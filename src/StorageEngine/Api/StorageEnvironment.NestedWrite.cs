using System.Diagnostics;

namespace StorageEngine;

// Telling a nested BeginWrite from a writer waiting its turn: a thread that already holds the write transaction
// would wait for itself until the timeout, then blame "another write transaction".
public sealed partial class StorageEnvironment
{
    /// <summary>
    /// How long BeginWrite waits for a write transaction that looks like its own caller's to be used by another
    /// thread (a hand-off: begun here, committed there) before refusing. Below the default timeout, and long
    /// enough for a pool thread to be scheduled on a busy machine: 2 s was not (a hand-off in GroupCommitTests was
    /// refused as nested while two CI runs shared two cores). Internal and settable for tests.
    /// </summary>
    internal TimeSpan NestedWriteGrace { get; set; } = TimeSpan.FromSeconds(10);
    private static readonly TimeSpan NestedWritePoll = TimeSpan.FromMilliseconds(5);
    private static long s_writeTokens;
    // The token of the write transaction that this flow of execution began with BeginWrite. An AsyncLocal rather
    // than the thread alone: a pool thread runs many flows, and the one holding the write transaction may be
    // awaiting while another flow on the same thread begins a writer that must wait for it.
    private static readonly AsyncLocal<long> s_flowWriteToken = new();
    // The flow token of a writer begun on a thread of its own (see ClaimForFlow); flows' tokens are 0 or positive.
    private const long OwnThreadFlow = -1;
    // The write transaction begun by BeginWrite while it holds the write lock; null otherwise (also while one
    // begun by BeginWriteAsync holds it: an async method cannot mark its caller's flow).
    private WriteTransaction? _syncWriter;

    /// <summary>
    /// The running write transaction when it looks like the caller's own: this flow began it with BeginWrite on
    /// this thread (or, begun on a thread of its own, on this very thread), and it was last used on this thread.
    /// Null otherwise.
    /// </summary>
    private WriteTransaction? NestedWriter()
    {
        if (Volatile.Read(ref _syncWriter) is not { } writer) return null;
        int thread = System.Environment.CurrentManagedThreadId;
        if (writer.LastThread != thread || !writer.IsActive) return null;
        bool sameFlow = writer.FlowToken == OwnThreadFlow ? writer.BeganOnThread == thread : writer.FlowToken == s_flowWriteToken.Value;
        return sameFlow ? writer : null;
    }

    /// <summary>
    /// Waits for the write lock after a first try failed. While the running writer looks like the caller's own
    /// (see <see cref="NestedWriter"/>), waits in short steps for it to end or move to another thread, and refuses
    /// once it has looked so for <see cref="NestedWriteGrace"/> (or the whole timeout, if shorter).
    /// </summary>
    private bool WaitForWriteLock(TimeSpan timeout)
    {
        if (timeout == Timeout.InfiniteTimeSpan) timeout = TimeSpan.MaxValue;
        long started = Stopwatch.GetTimestamp();
        while (NestedWriter() is { } writer)
        {
            var elapsed = Stopwatch.GetElapsedTime(started);
            if (elapsed >= NestedWriteGrace || elapsed >= timeout)
                throw new InvalidOperationException(
                    $"This thread already holds the write transaction of the environment in '{Directory}' (transaction {writer.TransactionId}); " +
                    "commit or dispose it before beginning another. Only one write transaction runs at a time, so waiting for it here would never end.");
            var step = timeout - elapsed;
            if (_commits.EnterWriter(step < NestedWritePoll ? step : NestedWritePoll)) return true;
        }
        if (timeout == TimeSpan.MaxValue) return _commits.EnterWriter(Timeout.InfiniteTimeSpan);
        var left = timeout - Stopwatch.GetElapsedTime(started);
        return _commits.EnterWriter(left > TimeSpan.Zero ? left : TimeSpan.Zero);
    }

    /// <summary>Marks <paramref name="writer"/>, just begun by BeginWrite, as this flow's.</summary>
    /// <remarks>
    /// A thread of its own (not the pool's, with no synchronization context to post continuations to it) runs one
    /// flow at a time: another can only run on it inside a call of this one (a task inlined by a wait), which would
    /// wait for this writer forever. There the thread itself tells the flow, and the AsyncLocal is left alone:
    /// setting it makes a new execution context, about 90 bytes, on every BeginWrite.
    /// </remarks>
    private void ClaimForFlow(WriteTransaction writer)
    {
        if (!Thread.CurrentThread.IsThreadPoolThread && SynchronizationContext.Current is null)
        {
            writer.FlowToken = OwnThreadFlow;
        }
        else
        {
            long token = Interlocked.Increment(ref s_writeTokens);
            s_flowWriteToken.Value = token;
            writer.FlowToken = token;
        }
        Volatile.Write(ref _syncWriter, writer);
    }

    /// <summary>What BeginWrite and BeginWriteAsync throw when the running writer held the lock past the timeout.</summary>
    private static TimeoutException WriteLockTimeout(TimeSpan timeout) =>
        new($"Another write transaction held the environment for longer than {timeout.TotalSeconds:0.###} s; only one writer runs at a time.");
}
