namespace StorageEngine.Tests.Unit;

/// <summary>
/// The guard that admits one thread at a time into a write transaction's (and a read cursor's) operations: its
/// owner enters without interlocked instructions, another thread takes it over when the owner is outside and is
/// refused while the owner is inside, and under contention no two threads are ever inside at once.
/// </summary>
public sealed class OperationGuardTests
{
    private sealed class Holder
    {
        public OperationGuard Guard = new();
    }

    private static Task<T> OnAnotherThread<T>(Func<T> body) => Task.Factory.StartNew(body, TaskCreationOptions.LongRunning);

    [Fact]
    public async Task Another_thread_is_refused_while_the_owner_is_inside_and_takes_over_once_it_is_outside()
    {
        var holder = new Holder();
        int me = Environment.CurrentManagedThreadId;
        bool asOwner = holder.Guard.TryEnter(me, out int inside);
        Assert.True(asOwner);
        Assert.Equal(0, inside);

        var refused = await OnAnotherThread(() =>
        {
            holder.Guard.TryEnter(Environment.CurrentManagedThreadId, out int seen);
            return seen;
        });
        Assert.Equal(me, refused);

        holder.Guard.Exit(asOwner);
        var (otherThread, otherInside) = await OnAnotherThread(() =>
        {
            int thread = Environment.CurrentManagedThreadId;
            bool owner = holder.Guard.TryEnter(thread, out int seen);
            Assert.False(owner);
            return (thread, seen);
        });
        Assert.Equal(0, otherInside);
        // The other thread entered by compare-exchange and never left: this thread is now refused, naming it.
        holder.Guard.TryEnter(me, out inside);
        Assert.Equal(otherThread, inside);
    }

    [Fact]
    public void A_closed_guard_admits_no_one()
    {
        var holder = new Holder();
        int me = Environment.CurrentManagedThreadId;
        holder.Guard.Exit(holder.Guard.TryEnter(me, out _));
        holder.Guard.Close(me);
        holder.Guard.TryEnter(me, out int inside);
        Assert.Equal(OperationGuard.Closed, inside);
    }

    [Fact]
    public async Task Under_contention_no_two_threads_are_ever_inside_at_once()
    {
        var holder = new Holder();
        int occupied = 0, overlaps = 0, entries = 0, refusals = 0;
        using var barrier = new Barrier(3);
        var threads = Enumerable.Range(0, 3).Select(_ => Task.Factory.StartNew(() =>
        {
            int thread = Environment.CurrentManagedThreadId;
            barrier.SignalAndWait();
            for (int i = 0; i < 100_000; i++)
            {
                bool asOwner = holder.Guard.TryEnter(thread, out int inside);
                if (inside != 0)
                {
                    Interlocked.Increment(ref refusals);
                    continue;
                }
                if (Interlocked.Exchange(ref occupied, 1) != 0) Interlocked.Increment(ref overlaps);
                Interlocked.Increment(ref entries);
                Thread.SpinWait(5);
                Volatile.Write(ref occupied, 0);
                holder.Guard.Exit(asOwner);
            }
        }, TaskCreationOptions.LongRunning)).ToArray();
        await Task.WhenAll(threads);
        Assert.Equal(0, overlaps);
        Assert.Equal(300_000, entries + refusals);
        Assert.True(entries > 0);
    }

    [Fact]
    public async Task A_take_over_racing_the_owners_entries_never_lets_both_in()
    {
        // Each round a fresh guard: one thread claims it and enters and leaves in a loop while the other takes it over.
        const int Rounds = 2_000;
        var holders = Enumerable.Range(0, Rounds).Select(_ => new Holder()).ToArray();
        int occupied = 0, overlaps = 0, takeOvers = 0;
        using var barrier = new Barrier(2);
        void Use(Holder holder, int thread, int times, bool once)
        {
            for (int i = 0; i < times; i++)
            {
                bool asOwner = holder.Guard.TryEnter(thread, out int inside);
                if (inside != 0) continue;
                if (Interlocked.Exchange(ref occupied, 1) != 0) Interlocked.Increment(ref overlaps);
                if (once) Interlocked.Increment(ref takeOvers);
                Thread.SpinWait(2);
                Volatile.Write(ref occupied, 0);
                holder.Guard.Exit(asOwner);
                if (once) return;
            }
        }
        var owner = Task.Factory.StartNew(() =>
        {
            int thread = Environment.CurrentManagedThreadId;
            foreach (var holder in holders)
            {
                holder.Guard.Exit(holder.Guard.TryEnter(thread, out _));
                barrier.SignalAndWait();
                Use(holder, thread, 200, once: false);
                barrier.SignalAndWait();
            }
        }, TaskCreationOptions.LongRunning);
        var taker = Task.Factory.StartNew(() =>
        {
            int thread = Environment.CurrentManagedThreadId;
            foreach (var holder in holders)
            {
                barrier.SignalAndWait();
                Use(holder, thread, 200, once: true);
                barrier.SignalAndWait();
            }
        }, TaskCreationOptions.LongRunning);
        await Task.WhenAll(owner, taker);
        Assert.Equal(0, overlaps);
        Assert.True(takeOvers > 0, "the other thread never got in");
    }
}
