using System.Runtime.CompilerServices;

namespace StorageEngine;

/// <summary>
/// Admits one thread at a time into the operations of an object that is not thread-safe (a write transaction, a
/// read transaction's cursor), and tells a second thread that arrives meanwhile who is inside. Threads may take
/// turns (async code moves a transaction between threads at each await); only overlapping operations are refused.
/// </summary>
/// <remarks>
/// Biased, so that the usual case (one thread doing all the operations) costs no interlocked instruction: the first
/// thread to enter owns the guard, and marks itself inside with an ordinary store and a re-read. Another thread
/// that arrives takes the ownership away: it marks the guard as being revoked, forces every processor's pending
/// stores out (<see cref="Interlocked.MemoryBarrierProcessWide"/>), and then either sees the owner inside (and
/// refuses itself, leaving the owner its guard) or knows that the owner will see the revocation when it next
/// re-reads, so that from then on every thread enters with a compare-exchange. The owner's store and re-read
/// against the revoker's write, barrier and read are Dekker's handshake with the expensive fence on the rare side
/// (as biased locks and membarrier-based RCU do). A guard is revoked at most once, on the first hand-over.
/// </remarks>
internal struct OperationGuard
{
    /// <summary>What <see cref="TryEnter"/> reports as the thread inside once the guard has been closed for good.</summary>
    public const int Closed = -1;
    private const int Shared = 0;
    private const int Revoking = -2;
    private const int Unclaimed = -3;

    // The owning thread's managed id; Unclaimed before the first entry; Shared once another thread took it over
    // (then _inside, by compare-exchange, says who is inside); Revoking during a take-over; Closed at the end.
    private int _owner;
    // Set by the owner while it is inside (biased entries).
    private int _ownerInside;
    // Shared entries: the managed id of the thread inside, 0 when none, Closed at the end.
    private int _inside;

    public OperationGuard() => _owner = Unclaimed;

    /// <summary>
    /// Enters on behalf of <paramref name="thread"/> (its managed id). Returns true when entered as the owner,
    /// false otherwise; <paramref name="inside"/> is 0 when entered, else the thread inside (or <see cref="Closed"/>),
    /// and the caller must not go on. Pass the returned value to <see cref="Exit"/>.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryEnter(int thread, out int inside)
    {
        if (Volatile.Read(ref _owner) == thread)
        {
            Volatile.Write(ref _ownerInside, 1);
            if (Volatile.Read(ref _owner) == thread)
            {
                inside = 0;
                return true;
            }
            Volatile.Write(ref _ownerInside, 0);
        }
        return TryEnterSlow(thread, out inside);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool TryEnterSlow(int thread, out int inside)
    {
        var spin = new SpinWait();
        while (true)
        {
            int owner = Volatile.Read(ref _owner);
            if (owner == thread)
            {
                Volatile.Write(ref _ownerInside, 1);
                if (Volatile.Read(ref _owner) == thread)
                {
                    inside = 0;
                    return true;
                }
                // Being taken over: step out and see what became of the guard.
                Volatile.Write(ref _ownerInside, 0);
                continue;
            }
            switch (owner)
            {
                case Shared:
                    inside = Interlocked.CompareExchange(ref _inside, thread, 0);
                    return false;
                case Closed:
                    inside = Closed;
                    return false;
                case Revoking:
                    spin.SpinOnce();
                    continue;
                case Unclaimed:
                    Interlocked.CompareExchange(ref _owner, thread, Unclaimed);
                    continue;
            }
            // Owned by another thread: take it over, unless the owner is inside.
            if (Interlocked.CompareExchange(ref _owner, Revoking, owner) != owner) continue;
            Interlocked.MemoryBarrierProcessWide();
            if (Volatile.Read(ref _ownerInside) != 0)
            {
                Volatile.Write(ref _owner, owner);
                inside = owner;
                return false;
            }
            Volatile.Write(ref _owner, Shared);
        }
    }

    /// <summary>Leaves after an entry that <see cref="TryEnter"/> admitted (<paramref name="asOwner"/>: what it returned).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Exit(bool asOwner)
    {
        if (asOwner) Volatile.Write(ref _ownerInside, 0);
        else Volatile.Write(ref _inside, 0);
    }

    /// <summary>
    /// Closes the guard for good once no other thread is inside (waiting for one that is: operations are short);
    /// every later <see cref="TryEnter"/> reports <see cref="Closed"/>.
    /// </summary>
    public void Close(int thread)
    {
        var spin = new SpinWait();
        while (true)
        {
            bool asOwner = TryEnter(thread, out int inside);
            if (inside == Closed) return;
            if (inside == thread)
            {
                // Closed from inside one of its own operations: no other thread is inside.
                Volatile.Write(ref _inside, Closed);
                Volatile.Write(ref _owner, Closed);
                return;
            }
            if (inside == 0)
            {
                if (asOwner) Volatile.Write(ref _owner, Closed);
                else
                {
                    Volatile.Write(ref _inside, Closed);
                    Volatile.Write(ref _owner, Closed);
                }
                return;
            }
            spin.SpinOnce();
        }
    }
}
