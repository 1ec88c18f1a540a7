using System.Diagnostics;
using System.Runtime.ExceptionServices;

namespace StorageEngine;

/// <summary>
/// The queue behind <see cref="StorageEnvironment.Write(string, WriteBatch)"/>: callers on several threads queue
/// their batches, and the first in the queue, the leader of the moment, applies its own and those queued behind it
/// (up to <see cref="MaxGroupBytes"/>) in one write transaction, while the others wait for it or lead the next
/// group. Several small writers so pay for one transaction, and hand the write lock to each other once per group
/// rather than once per batch.
/// </summary>
internal sealed class GroupedWrites
{
    /// <summary>Bytes of keys and values past which a group takes no further batch (one at least).</summary>
    public const int MaxGroupBytes = 1 << 20;

    /// <summary>The longest a leader waits for the batches it expects (see <see cref="TakeMore"/>): 20 µs.</summary>
    private static readonly long MaxLateWaitTicks = Stopwatch.Frequency / 50_000;

    /// <summary>How long a waiting writer spins before it blocks (waking a blocked thread costs tens of microseconds on a virtual machine).</summary>
    private const int SpinIterations = 40;

    private readonly object _lock = new();
    private readonly Queue<Entry> _queue = new();
    private readonly List<Entry> _group = new();
    // Batches queued (mirrors _queue.Count for lock-free reads); batches the next group may expect (the last group's
    // size plus those that queued while it was applied); a running average of a group's time in Stopwatch ticks;
    // whether the leader of the moment has already waited for late batches. The last two are the leader's alone.
    private int _queued;
    private int _expected;
    private long _groupTicks;
    private bool _waitedThisGroup;
    [ThreadStatic] private static Entry? t_entry;

    /// <summary>Batches queued now, the one being applied included.</summary>
    public int Queued => Volatile.Read(ref _queued);

    /// <summary>One caller's batch while it is queued or applied. One per thread, reused: a caller waits for its own.</summary>
    internal sealed class Entry
    {
        public string TreeName = "";
        public WriteBatch Batch = null!;
        public ExceptionDispatchInfo? Failure;
        public volatile bool Done;
        public volatile bool Leads;
    }

    /// <summary>Applies the batch to the tree in a write transaction shared with the batches queued meanwhile; see <see cref="StorageEnvironment.Write"/>.</summary>
    /// <param name="treeName">The tree the batch is for.</param>
    /// <param name="batch">The caller's batch, unchanged until this returns.</param>
    /// <param name="apply">
    /// Applies a group (the leader's work): called with the batches in queue order, it sets each one's failure, and
    /// takes the batches queued meanwhile with <see cref="TakeMore"/> before it commits.
    /// </param>
    public void Write(string treeName, WriteBatch batch, Action<List<Entry>> apply)
    {
        var entry = t_entry ??= new Entry();
        entry.TreeName = treeName;
        entry.Batch = batch;
        entry.Failure = null;
        entry.Done = false;
        bool leads;
        lock (_lock)
        {
            _queue.Enqueue(entry);
            _queued = _queue.Count;
            leads = _queue.Count == 1;
        }
        if (!leads)
        {
            try
            {
                leads = AwaitTurn(entry);
            }
            catch
            {
                // Interrupted while queued (Thread.Interrupt): the entry stays in the queue and a leader will apply
                // it, so this thread must not reuse it.
                t_entry = null;
                throw;
            }
        }
        if (leads) Lead(apply);
        var failure = entry.Failure;
        entry.Batch = null!;
        entry.Failure = null;
        failure?.Throw();
    }

    /// <summary>Waits until a leader has applied the entry (false) or the entry is first in the queue and leads (true).</summary>
    private bool AwaitTurn(Entry entry)
    {
        var spinner = new SpinWait();
        for (int i = 0; i < SpinIterations && !entry.Done && !entry.Leads; i++) spinner.SpinOnce(sleep1Threshold: -1);
        if (!entry.Done && !entry.Leads)
        {
            lock (_lock)
            {
                while (!entry.Done && !entry.Leads) Monitor.Wait(_lock);
            }
        }
        bool leads = entry.Leads;
        entry.Leads = false;
        return leads && !entry.Done;
    }

    /// <summary>
    /// Adds to the leader's <paramref name="group"/> (always the front of the queue) the batches queued behind it,
    /// up to <see cref="MaxGroupBytes"/> in all; false when none was added. The leader calls it again once it has
    /// applied what it took, before it commits: batches that came meanwhile join the same commit, which keeps two
    /// threads that write in turn from leading alternate groups of one.
    /// </summary>
    public bool TakeMore(List<Entry> group)
    {
        if (TakeQueued(group)) return true;
        if (_waitedThisGroup || group.Count >= Volatile.Read(ref _expected)) return false;
        // Fewer than the last group held, counting those that queued while it was applied: the others are likely
        // on their way back with their next batch, a few microseconds behind when they only write. Worth a short
        // wait: half a group's time, at most MaxLateWait (a writer that reads in between comes too late anyway).
        _waitedThisGroup = true;
        long deadline = Stopwatch.GetTimestamp() + Math.Min(Volatile.Read(ref _groupTicks) / 2, MaxLateWaitTicks);
        var spinner = new SpinWait();
        while (Volatile.Read(ref _queued) <= group.Count && Stopwatch.GetTimestamp() < deadline) spinner.SpinOnce(sleep1Threshold: -1);
        return TakeQueued(group);
    }

    private bool TakeQueued(List<Entry> group)
    {
        if (Volatile.Read(ref _queued) <= group.Count) return false;
        lock (_lock)
        {
            long bytes = 0;
            int position = 0;
            int before = group.Count;
            foreach (var queued in _queue)
            {
                if (position++ < before)
                {
                    bytes += queued.Batch.ByteCount;
                    continue;
                }
                if (group.Count > 0 && bytes + queued.Batch.ByteCount > MaxGroupBytes) break;
                bytes += queued.Batch.ByteCount;
                group.Add(queued);
            }
            return group.Count > before;
        }
    }

    /// <summary>The leader's work: takes the group from the front of the queue, applies it, and hands the lead on.</summary>
    private void Lead(Action<List<Entry>> apply)
    {
        _waitedThisGroup = false;
        long started = Stopwatch.GetTimestamp();
        TakeQueued(_group);
        try
        {
            apply(_group);
        }
        catch (Exception e)
        {
            // The group's transaction failed as a whole: its batches stand or fall together, as one transaction's
            // changes do (a commit that failed in its journal write may still be found after a reopen).
            var failure = ExceptionDispatchInfo.Capture(e);
            foreach (var member in _group) member.Failure ??= failure;
        }
        finally
        {
            // The group list is the next leader's once the lead is handed on: cleared before that.
            long took = Stopwatch.GetTimestamp() - started;
            _groupTicks = _groupTicks == 0 ? took : _groupTicks + (took - _groupTicks) / 8;
            lock (_lock)
            {
                for (int i = 0; i < _group.Count; i++) _queue.Dequeue().Done = true;
                _queued = _queue.Count;
                _expected = _group.Count + _queue.Count;
                _group.Clear();
                if (_queue.TryPeek(out var next)) next.Leads = true;
                Monitor.PulseAll(_lock);
            }
        }
    }
}
