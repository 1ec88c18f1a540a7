using System.Runtime.InteropServices;

namespace StorageEngine.Transactions;

/// <summary>
/// The snapshots that readers hold, one cache-line-padded slot per reader, so that registering and leaving
/// take one interlocked operation and never a lock. The writer scans it to learn the oldest snapshot still
/// in use: pages freed after that snapshot, and mappings retired after it, must be kept.
/// </summary>
/// <remarks>
/// The slots come in chunks of <see cref="ChunkSlots"/>, each allocated by the first reader that needs one of its
/// slots: the whole table (1,024 slots by default, 64 KiB) was allocated and zeroed by every open, the largest step
/// of opening a small environment, while a process reads with a few threads. A chunk is published by a
/// compare-and-exchange before any slot in it is claimed, so a scan that finds no chunk there would have found all
/// its slots free: the reasoning for a free slot (see <see cref="Register"/>) holds for a missing chunk unchanged.
/// </remarks>
internal sealed class ReaderTable
{
    /// <summary>Slots per chunk: 4 KiB of them.</summary>
    internal const int ChunkSlots = 1 << ChunkShift;
    private const int ChunkShift = 6;
    private const int ChunkMask = ChunkSlots - 1;

    [StructLayout(LayoutKind.Explicit, Size = 64)]
    private struct Slot
    {
        // Snapshot transaction id + 1, so that 0 can mean a free slot.
        [FieldOffset(0)] public long Value;

        // How many readers have claimed this slot: tells a reader registered now from one registered earlier at
        // the same snapshot (see TakeRegistrations). Written only by the reader that holds the slot.
        [FieldOffset(8)] public long Registrations;
    }

    // Chunk c holds slots [c * ChunkSlots, (c + 1) * ChunkSlots), the last one fewer when the capacity is not a
    // multiple; null until a reader needs one of its slots. Never replaced once set.
    private readonly Slot[]?[] _chunks;
    private readonly int _capacity;
    // One past the highest slot ever claimed: scans stop there rather than read every slot's cache line.
    private int _inUse;

    public ReaderTable(int capacity)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(capacity);
        _capacity = capacity;
        _chunks = new Slot[]?[(capacity + ChunkSlots - 1) >> ChunkShift];
    }

    public int Capacity => _capacity;

    /// <summary>Chunks allocated so far (for tests: an open that registers one reader allocates one).</summary>
    internal int ChunksAllocated
    {
        get
        {
            int count = 0;
            for (int c = 0; c < _chunks.Length; c++) if (Volatile.Read(ref _chunks[c]) is not null) count++;
            return count;
        }
    }

    /// <summary>Claims a slot for a reader of snapshot <paramref name="transactionId"/>; returns its index.</summary>
    /// <remarks>
    /// The search starts at a slot chosen by the thread, so that threads reading side by side claim slots on
    /// different cache lines and share no line that every registration writes.
    /// </remarks>
    public int Register(long transactionId)
    {
        int start = (int)((uint)Environment.CurrentManagedThreadId % (uint)_capacity);
        for (int n = 0; n < _capacity; n++)
        {
            int i = start + n;
            if (i >= _capacity) i -= _capacity;
            // Published (a full fence) before the bound is raised and the slot claimed: see the remarks above.
            var chunk = Volatile.Read(ref _chunks[i >> ChunkShift]) ?? AddChunk(i >> ChunkShift);
            ref Slot slot = ref chunk[i & ChunkMask];
            if (Volatile.Read(ref slot.Value) != 0) continue;
            // Raised before the slot is claimed (both full fences): a scan that stops short of this slot read
            // the bound first, so the reader's check of the current snapshot sees whatever that writer published.
            if (i >= Volatile.Read(ref _inUse)) RaiseInUse(i + 1);
            if (Interlocked.CompareExchange(ref slot.Value, transactionId + 1, 0) == 0)
            {
                // A full fence before the reader reads any page: see TakeRegistrations.
                Interlocked.Increment(ref slot.Registrations);
                return i;
            }
        }
        throw new InvalidOperationException(
            $"Too many read transactions are open at once (the limit is {_capacity}); dispose finished ones or raise StorageEnvironmentOptions.MaxReaders.");
    }

    /// <summary>Changes the snapshot a claimed slot announces (a full fence, so the writer sees it).</summary>
    public void Update(int slot, long transactionId) => Interlocked.Exchange(ref SlotAt(slot).Value, transactionId + 1);

    public void Release(int slot) => Interlocked.Exchange(ref SlotAt(slot).Value, 0);

    /// <summary>The oldest snapshot any reader holds, or <see cref="long.MaxValue"/> when there is none.</summary>
    public long Oldest()
    {
        long oldest = long.MaxValue;
        int inUse = Volatile.Read(ref _inUse);
        for (int first = 0; first < inUse; first += ChunkSlots)
        {
            // No chunk: none of its slots was claimed when it was read, as if each had been read free.
            if (Volatile.Read(ref _chunks[first >> ChunkShift]) is not { } chunk) continue;
            int end = Math.Min(chunk.Length, inUse - first);
            for (int j = 0; j < end; j++)
            {
                long value = Volatile.Read(ref chunk[j].Value);
                if (value > 0 && value - 1 < oldest) oldest = value - 1;
            }
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
        for (int first = 0; first < inUse; first += ChunkSlots)
        {
            if (Volatile.Read(ref _chunks[first >> ChunkShift]) is not { } chunk) continue;
            int end = Math.Min(chunk.Length, inUse - first);
            for (int j = 0; j < end; j++)
            {
                if (Volatile.Read(ref chunk[j].Value) != 0) taken.Add((first + j, Volatile.Read(ref chunk[j].Registrations)));
            }
        }
        return taken.ToArray();
    }

    /// <summary>True once every reader <see cref="TakeRegistrations"/> saw has ended (its slot freed or claimed again since).</summary>
    public bool HaveEnded((int Slot, long Registration)[] taken)
    {
        foreach (var (slot, registration) in taken)
        {
            ref Slot held = ref SlotAt(slot);
            if (Volatile.Read(ref held.Value) != 0 && Volatile.Read(ref held.Registrations) == registration) return false;
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
            for (int first = 0; first < inUse; first += ChunkSlots)
            {
                if (Volatile.Read(ref _chunks[first >> ChunkShift]) is not { } chunk) continue;
                int end = Math.Min(chunk.Length, inUse - first);
                for (int j = 0; j < end; j++) if (Volatile.Read(ref chunk[j].Value) > 0) count++;
            }
            return count;
        }
    }

    /// <summary>A slot that was claimed (so its chunk exists).</summary>
    private ref Slot SlotAt(int slot) => ref Volatile.Read(ref _chunks[slot >> ChunkShift])![slot & ChunkMask];

    /// <summary>
    /// Allocates chunk <paramref name="index"/>, or takes the one another reader published first. The
    /// compare-and-exchange publishes the zeroed slots with the reference and is the full fence that orders the
    /// chunk before the bound is raised and a slot in it claimed.
    /// </summary>
    private Slot[] AddChunk(int index)
    {
        var fresh = new Slot[Math.Min(ChunkSlots, _capacity - (index << ChunkShift))];
        return Interlocked.CompareExchange(ref _chunks[index], fresh, null) ?? fresh;
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
