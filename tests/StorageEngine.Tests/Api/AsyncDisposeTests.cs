using StorageEngine.Platform;
using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Api;

/// <summary>
/// DisposeAsync closes like Dispose (final checkpoint, files and lock released) without blocking the caller's
/// thread on the close's flushes, and never waits for a write transaction that is still open.
/// </summary>
public sealed class AsyncDisposeTests
{
    /// <summary>Options on <paramref name="fs"/> with no background checkpoint (the final one has the commits to write).</summary>
    internal static StorageEnvironmentOptions Options(IFileSystem fs) => new()
    {
        Path = "/db",
        Durability = DurabilityMode.Safe,
        FileSystem = fs,
        // No background checkpoint: the final one has the commits below to write.
        CheckpointThreshold = long.MaxValue,
        CheckpointInterval = TimeSpan.FromHours(1),
    };

    /// <summary>Commits keys <paramref name="from"/> to <paramref name="from"/> + <paramref name="count"/> - 1 into tree "t".</summary>
    internal static void Commit(StorageEnvironment env, int from, int count)
    {
        using var tx = env.BeginWrite();
        var tree = tx.TryOpenTree("t", out var existing) ? existing : tx.CreateTree("t");
        for (int i = from; i < from + count; i++) tree.Put(TestData.Key(i), TestData.Value(i, 100));
        tx.Commit();
    }

    [Fact]
    public async Task DisposeAsync_returns_while_the_final_checkpoint_waits_on_a_flush_and_completes_once_closed()
    {
        var memory = new MemoryFileSystem();
        var gate = new IoGate();
        var env = StorageEnvironment.Open(Options(new GatedFileSystem(memory, gate)));
        Commit(env, 0, 1_000);

        gate.Arm();
        var disposing = env.DisposeAsync();
        bool returnedBeforeTheFlush = !disposing.IsCompleted;
        bool flushReached = gate.WaitUntilReached(TimeSpan.FromSeconds(30));
        gate.Release();
        await disposing;

        Assert.True(flushReached, "the close never flushed: the test checks nothing");
        Assert.True(returnedBeforeTheFlush, "DisposeAsync returned only after the final checkpoint's flush: it blocked the caller");
        // Closed: the lock is free and the final checkpoint left the commits in the data file.
        using var reopened = StorageEnvironment.Open(Options(memory));
        using var read = reopened.BeginRead();
        Assert.Equal(TestData.Value(999, 100), read.OpenTree("t").Get(TestData.Key(999))!);
    }

    [Fact]
    public async Task DisposeAsync_with_a_write_transaction_open_completes_at_once_and_ending_the_transaction_closes_the_environment()
    {
        var memory = new MemoryFileSystem();
        var env = StorageEnvironment.Open(Options(memory));
        Commit(env, 0, 10);
        var tx = env.BeginWrite();
        tx.OpenTree("t").Put(TestData.Key(10), TestData.Value(10, 100));

        await env.DisposeAsync().AsTask().WaitAsync(TimeSpan.FromSeconds(30));

        Assert.Throws<ObjectDisposedException>(() => env.BeginRead());
        Assert.Throws<EnvironmentLockedException>(() => StorageEnvironment.Open(Options(memory)).Dispose());
        // As after Dispose: the open transaction can no longer commit, and ending it closes the environment.
        Assert.Throws<ObjectDisposedException>(() => tx.Commit());
        tx.Dispose();
        using var reopened = StorageEnvironment.Open(Options(memory));
        using var read = reopened.BeginRead();
        Assert.Equal(10, read.OpenTree("t").Count);
    }

    [Fact]
    public async Task DisposeAsync_after_Dispose_or_twice_completes_and_changes_nothing()
    {
        var memory = new MemoryFileSystem();
        var env = StorageEnvironment.Open(Options(memory));
        Commit(env, 0, 10);
        env.Dispose();
        await env.DisposeAsync();
        await env.DisposeAsync();
        using var reopened = StorageEnvironment.Open(Options(memory));
        Assert.Equal(env.LastCommittedTransactionId, reopened.LastCommittedTransactionId);
    }

    [Fact]
    public async Task Await_using_closes_the_environment_at_the_end_of_the_scope()
    {
        var memory = new MemoryFileSystem();
        await using (var env = StorageEnvironment.Open(Options(memory)))
            Commit(env, 0, 10);
        using var reopened = StorageEnvironment.Open(Options(memory));
        using var read = reopened.BeginRead();
        Assert.Equal(10, read.OpenTree("t").Count);
    }
}
