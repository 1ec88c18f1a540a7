using System.Diagnostics;
using System.Runtime.ExceptionServices;

namespace StorageEngine;

/// <summary>
/// The queue behind <see cref="StorageEnvironment.Write(string, WriteBatch)"/>: callers on several threads queue
/// their batches, and one of them, the leader of the moment, takes its own and those queued behind it (up to
/// <see cref="MaxGroupBytes"/>) and applies them in one write transaction, while the others wait for it or lead
/// the next group. Several small writers so pay for one transaction, and hand the write lock to each other once
/// per group rather than once per batch. A leader hands the lead on as soon as its group is committed in memory,
/// so the next group is built while this one's journal write runs (see <see cref="HandOff"/>).
/// </summary>
internal sealed class GroupedWrites
{
    /// <summary>Bytes of keys and values past which a group takes no further batch (one at least).</summary>
    public const int MaxGroupBytes = 1 << 20;

    /// <summary>The longest a leader waits for the batches it expects (see <see cref="Group.TakeMore"/>): 20 µs.</summary>
    private static readonly long MaxLateWaitTicks = Stopwatch.Frequency / 50_000;

    /// <summary>How long a waiting writer spins before it blocks (waking a blocked thread costs tens of microseconds on a virtual machine).</summary>
    private const int SpinIterations = 40;

    private readonly object _lock = new();
    // Batches waiting to be taken into a group; whether some thread leads (takes, applies, commits a group).
    // Guarded by _lock.
    private readonly Queue<Entry> _queue = new();
    private bool _leading;
    // Mirrors _queue.Count for lock-free reads; the batches the next group may expect (the last group's size plus
    // those that queued while it was applied); a running average of the time from a group's start to its hand-off,
    // in Stopwatch ticks.
    private int _queued;
    private int _expected;
    private long _groupTicks;
    private int _outstanding;
    [ThreadStatic] private static Entry? t_entry;
    [ThreadStatic] private static Group? t_group;

    /// <summary>Batches queued or in a group and not yet done (applied or refused), for tests.</summary>
    public int Outstanding => Volatile.Read(ref _outstanding);

    /// <summary>One caller's batch while it is queued or applied. One per thread, reused: a caller waits for its own.</summary>
    internal sealed class Entry
    {
        public string TreeName = "";
        public WriteBatch Batch = null!;
        public ExceptionDispatchInfo? Failure;
        public volatile bool Done;
        public volatile bool Leads;
        // For a caller of WriteAsync (one entry per call): completes with true when it is the caller's turn to
        // lead, or false once a leader has applied the batch. Null for a thread that waits (Write).
        public TaskCompletionSource<bool>? Turn;
    }

    /// <summary>One leader's group: its batches, and whether it has waited for late ones and handed the lead on.</summary>
    /// <remarks>One per thread, reused by each group the thread leads.</remarks>
    internal sealed class Group
    {
        private GroupedWrites _owner = null!;
        private long _started;
        private bool _waited;
        private bool _handedOff;

        /// <summary>Starts a group of <paramref name="owner"/>'s, with no batch yet.</summary>
        public void Start(GroupedWrites owner)
        {
            _owner = owner;
            _started = Stopwatch.GetTimestamp();
            _waited = false;
            _handedOff = false;
            Entries.Clear();
        }

        /// <summary>The batches, in the order they were queued.</summary>
        public List<Entry> Entries { get; } = new();

        /// <summary>
        /// Takes the batches queued since the group was taken (up to <see cref="MaxGroupBytes"/> in all); false when
        /// none came. Called once the group is applied, before it commits: batches that came meanwhile join the
        /// same commit. When fewer came than the last group held (counting those that queued while it was applied),
        /// waits once, briefly, for the others: they are likely on their way back with their next batch, a few
        /// microseconds behind when they only write (half a group's time at most, and at most MaxLateWait).
        /// </summary>
        public bool TakeMore()
        {
            if (_owner.Take(Entries)) return true;
            if (_waited || Entries.Count >= Volatile.Read(ref _owner._expected)) return false;
            _waited = true;
            long deadline = Stopwatch.GetTimestamp() + Math.Min(Volatile.Read(ref _owner._groupTicks) / 2, MaxLateWaitTicks);
            var spinner = new SpinWait();
            while (Volatile.Read(ref _owner._queued) == 0 && Stopwatch.GetTimestamp() < deadline) spinner.SpinOnce(sleep1Threshold: -1);
            return _owner.Take(Entries);
        }

        /// <summary>
        /// Hands the lead to the first batch queued, if any: called once the group's transaction is committed in
        /// memory (the write lock free again), or when it failed. Only the first call does anything.
        /// </summary>
        public void HandOff()
        {
            if (_handedOff) return;
            _handedOff = true;
            long took = Stopwatch.GetTimestamp() - _started;
            _owner._groupTicks = _owner._groupTicks == 0 ? took : _owner._groupTicks + (took - _owner._groupTicks) / 8;
            _owner.HandOff(Entries.Count);
        }
    }

    /// <summary>Applies the batch to the tree in a write transaction shared with the batches queued meanwhile; see <see cref="StorageEnvironment.Write"/>.</summary>
    /// <param name="treeName">The tree the batch is for.</param>
    /// <param name="batch">The caller's batch, unchanged until this returns.</param>
    /// <param name="apply">
    /// Applies a group (the leader's work): sets each batch's failure, takes the batches queued meanwhile with
    /// <see cref="Group.TakeMore"/> before it commits, and calls <see cref="Group.HandOff"/> once committed in
    /// memory; returns once the commit is durable.
    /// </param>
    public void Write(string treeName, WriteBatch batch, Action<Group> apply)
    {
        var entry = t_entry ??= new Entry();
        entry.TreeName = treeName;
        entry.Batch = batch;
        entry.Failure = null;
        entry.Done = false;
        bool leads = Enqueue(entry);
        if (!leads)
        {
            try
            {
                leads = AwaitTurn(entry);
            }
            catch
            {
                // Interrupted while queued (Thread.Interrupt): the entry stays queued and a leader will apply it,
                // so this thread must not reuse it.
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

    /// <summary>
    /// <see cref="Write"/> for a caller that awaits: its entry is its own (a caller may resume on another thread),
    /// and it waits for its turn or its group as a task. A leader of either kind applies its batch.
    /// </summary>
    /// <param name="treeName">The tree the batch is for.</param>
    /// <param name="batch">The caller's batch, unchanged until the task completes.</param>
    /// <param name="applyAsync">What <paramref name="batch"/>'s leader runs if this caller leads (see <see cref="Write"/>'s apply).</param>
    public async ValueTask WriteAsync(string treeName, WriteBatch batch, Func<Group, Task> applyAsync)
    {
        var entry = new Entry
        {
            TreeName = treeName,
            Batch = batch,
            Turn = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously),
        };
        bool leads = Enqueue(entry);
        if (!leads) leads = await entry.Turn.Task.ConfigureAwait(false);
        if (leads)
        {
            var group = StartGroup(new Group());
            try
            {
                await applyAsync(group).ConfigureAwait(false);
            }
            catch (Exception e)
            {
                Fail(group, e);
            }
            finally
            {
                Finish(group);
            }
        }
        entry.Failure?.Throw();
    }

    /// <summary>Waits until a leader has applied the entry (false) or it is this caller's turn to lead (true).</summary>
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
        return leads;
    }

    /// <summary>Moves queued batches, in order and up to <see cref="MaxGroupBytes"/> in all (one at least), into <paramref name="entries"/>; false when none moved.</summary>
    private bool Take(List<Entry> entries)
    {
        if (Volatile.Read(ref _queued) == 0) return false;
        lock (_lock)
        {
            long bytes = 0;
            foreach (var taken in entries) bytes += taken.Batch.ByteCount;
            int before = entries.Count;
            while (_queue.TryPeek(out var next) && (entries.Count == 0 || bytes + next.Batch.ByteCount <= MaxGroupBytes))
            {
                bytes += next.Batch.ByteCount;
                entries.Add(_queue.Dequeue());
            }
            _queued = _queue.Count;
            return entries.Count > before;
        }
    }

    /// <summary>The lead passes to the first batch queued, or lapses when none is.</summary>
    private void HandOff(int groupSize)
    {
        lock (_lock)
        {
            _expected = groupSize + _queue.Count;
            if (_queue.TryPeek(out var next))
            {
                next.Leads = true;
                if (next.Turn is { } turn) turn.TrySetResult(true);
                else Monitor.PulseAll(_lock);
            }
            else
            {
                _leading = false;
            }
        }
    }

    /// <summary>The leader's work: takes a group from the front of the queue, applies it, hands the lead on, and marks the group done once durable.</summary>
    private void Lead(Action<Group> apply)
    {
        var group = StartGroup(t_group ??= new Group());
        try
        {
            apply(group);
        }
        catch (Exception e)
        {
            Fail(group, e);
        }
        finally
        {
            Finish(group);
        }
    }

    /// <summary>Queues a caller's entry; true when no one leads, so this caller does.</summary>
    private bool Enqueue(Entry entry)
    {
        Interlocked.Increment(ref _outstanding);
        lock (_lock)
        {
            _queue.Enqueue(entry);
            _queued = _queue.Count;
            bool leads = !_leading;
            _leading = true;
            return leads;
        }
    }

    /// <summary>Starts <paramref name="group"/> for a new leader with the batches at the front of the queue.</summary>
    private Group StartGroup(Group group)
    {
        group.Start(this);
        Take(group.Entries);
        return group;
    }

    /// <summary>
    /// The group's transaction failed as a whole: its batches stand or fall together, as one transaction's changes
    /// do (a commit that failed in its journal write may still be found after a reopen).
    /// </summary>
    private static void Fail(Group group, Exception e)
    {
        var failure = ExceptionDispatchInfo.Capture(e);
        foreach (var member in group.Entries) member.Failure ??= failure;
    }

    /// <summary>Hands the lead on (if the commit did not), then marks the group's batches done and wakes their callers.</summary>
    private void Finish(Group group)
    {
        var entries = group.Entries;
        group.HandOff();
        lock (_lock)
        {
            foreach (var member in entries)
            {
                member.Done = true;
                member.Turn?.TrySetResult(false);
            }
            Interlocked.Add(ref _outstanding, -entries.Count);
            Monitor.PulseAll(_lock);
        }
        entries.Clear();
    }
}
