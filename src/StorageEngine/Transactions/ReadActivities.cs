using System.Collections.Concurrent;

namespace StorageEngine.Transactions;

/// <summary>
/// The read operations running on an environment, one <see cref="ReadActivity"/> per thread: what tells a close
/// that no operation still reads the memory it is about to unmap and free.
/// </summary>
/// <remarks>
/// The reader table alone does not tell it. A read transaction disposed on another thread while one of its
/// operations runs (misuse, but reachable from safe code) gives its slot back under that operation, and the last
/// slot given back after a close releases the memory: the operation would then read unmapped pages and crash the
/// process. So each read operation counts itself in its thread's activity with ordinary stores (no interlocked
/// instruction on the read path), and the release first forces every processor's pending stores out
/// (<see cref="Interlocked.MemoryBarrierProcessWide"/>) and then looks for a count above zero: Dekker's handshake
/// with the expensive fence on the rare side, as <see cref="OperationGuard"/> does. An operation that entered
/// before the barrier is seen; one that enters after it sees its transaction ended before it reads a page. An
/// operation still running postpones the release, which its transaction's exit then retries.
/// </remarks>
internal sealed class ReadActivities
{
    [ThreadStatic] private static ReadActivities? t_owner;
    [ThreadStatic] private static ReadActivity? t_activity;

    private readonly ConcurrentDictionary<int, ReadActivity> _byThread = new();

    /// <summary>The calling thread's activity (made on its first read of this environment).</summary>
    public ReadActivity ForCurrentThread()
    {
        if (ReferenceEquals(t_owner, this)) return t_activity!;
        return Find();
    }

    private ReadActivity Find()
    {
        // Managed thread ids are reused only once their thread is gone, and a thread leaves no operation counted.
        int thread = Environment.CurrentManagedThreadId;
        var activity = _byThread.GetOrAdd(thread, static id => new ReadActivity(id));
        t_owner = this;
        t_activity = activity;
        return activity;
    }

    /// <summary>True when some thread is inside a read operation now (a process-wide memory barrier first).</summary>
    public bool AnyInside()
    {
        if (_byThread.IsEmpty) return false;
        Interlocked.MemoryBarrierProcessWide();
        foreach (var activity in _byThread.Values)
        {
            if (Volatile.Read(ref activity.Inside) != 0) return true;
        }
        return false;
    }
}
