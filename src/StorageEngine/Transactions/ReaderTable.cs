using System.Runtime.InteropServices;

namespace StorageEngine.Transactions;

/// <summary>
/// The snapshots that readers hold, one cache-line-padded slot per reader, so that registering and leaving
/// take one interlocked operation and never a lock. The writer scans it to learn the oldest snapshot still
/// in use: pages freed after that snapshot, and mappings retired after it, must be kept.
/// </summary>
internal sealed class ReaderTable
{
    [StructLayout(LayoutKind.Explicit, Size = 64)]
    private struct Slot
    {
        // Snapshot transaction id + 1, so that 0 can mean a free slot.
        [FieldOffset(0)] public long Value;

        // How many readers have claimed this slot: tells a reader registered now from one registered earlier at
        // the same snapshot (see TakeRegistrations). Written only by the reader that holds the slot.
        [FieldOffset(8)] public long Registrations;
    }

    private readonly Slot[] _slots;
    // One past the highest slot ever claimed: scans stop there rather than read every slot's cache line.
    private int _inUse;

    public ReaderTable(int capacity) => _slots = new Slot[capacity];

    public int Capacity => _slots.Length;

    /// <summary>Claims a slot for a reader of snapshot <paramref name="transactionId"/>; returns its index.</summary>
    /// <remarks>
    /// The search starts at a slot chosen by the thread, so that threads reading side by side claim slots on
    /// different cache lines and share no line that every registration writes.
    /// </remarks>
    public int Register(long transactionId)
    {
        int start = (int)((uint)Environment.CurrentManagedThreadId % (uint)_slots.Length);
        for (int n = 0; n < _slots.Length; n++)
        {
            int i = start + n;
            if (i >= _slots.Length) i -= _slots.Length;
            if (Volatile.Read(ref _slots[i].Value) != 0) continue;
            // Raised before the slot is claimed (both full fences): a scan that stops short of this slot read
            // the bound first, so the reader's check of the current snapshot sees whatever that writer published.
            if (i >= Volatile.Read(ref _inUse)) RaiseInUse(i + 1);
            if (Interlocked.CompareExchange(ref _slots[i].Value, transactionId + 1, 0) == 0)
            {
                // A full fence before the reader reads any page: see TakeRegistrations.
                Interlocked.Increment(ref _slots[i].Registrations);
                return i;
            }
        }
        throw new InvalidOperationException(
            $"Too many read transactions are open at once (the limit is {_slots.Length}); dispose finished ones or raise StorageEnvironmentOptions.MaxReaders.");
    }

    /// <summary>Changes the snapshot a claimed slot announces (a full fence, so the writer sees it).</summary>
    public void Update(int slot, long transactionId) => Interlocked.Exchange(ref _slots[slot].Value, transactionId + 1);

    public void Release(int slot) => Interlocked.Exchange(ref _slots[slot].Value, 0);

    /// <summary>The oldest snapshot any reader holds, or <see cref="long.MaxValue"/> when there is none.</summary>
    public long Oldest()
    {
        long oldest = long.MaxValue;
        int inUse = Volatile.Read(ref _inUse);
        for (int i = 0; i < inUse; i++)
        {
            long value = Volatile.Read(ref _slots[i].Value);
            if (value > 0 && value - 1 < oldest) oldest = value - 1;
        }
        return oldest;
    }

    /// <summary>
    /// The readers registered now, each as its slot and that slot's registration count: what
    /// <see cref="HaveEnded"/> later checks. A reader whose count was read before its own increment counts as
    /// ended once it increments, which is safe for what this is for: that reader reads pages only after the
    /// increment (a full fence), and the caller made whatever it guards unreachable before this call (whose first
    /// step is a full fence), so such a reader can no longer reach it.
    /// </summary>
    public (int Slot, long Registration)[] TakeRegistrations()
    {
        Interlocked.MemoryBarrier();
        var taken = new List<(int, long)>();
        int inUse = Volatile.Read(ref _inUse);
        for (int i = 0; i < inUse; i++)
        {
            if (Volatile.Read(ref _slots[i].Value) != 0) taken.Add((i, Volatile.Read(ref _slots[i].Registrations)));
        }
        return taken.ToArray();
    }

    /// <summary>True once every reader <see cref="TakeRegistrations"/> saw has ended (its slot freed or claimed again since).</summary>
    public bool HaveEnded((int Slot, long Registration)[] taken)
    {
        foreach (var (slot, registration) in taken)
        {
            if (Volatile.Read(ref _slots[slot].Value) != 0 && Volatile.Read(ref _slots[slot].Registrations) == registration) return false;
        }
        return true;
    }

    /// <summary>Number of registered readers (a full fence first, so that a closing environment sees every reader).</summary>
    public int Count
    {
        get
        {
            Interlocked.MemoryBarrier();
            int count = 0;
            int inUse = Volatile.Read(ref _inUse);
            for (int i = 0; i < inUse; i++) if (Volatile.Read(ref _slots[i].Value) > 0) count++;
            return count;
        }
    }

    private void RaiseInUse(int bound)
    {
        int seen = Volatile.Read(ref _inUse);
        while (seen < bound)
        {
            int found = Interlocked.CompareExchange(ref _inUse, bound, seen);
            if (found == seen) return;
            seen = found;
        }
        Interlocked.MemoryBarrier();
    }
}
