using StorageEngine.Platform;
using StorageEngine.Tests.Api;
using StorageEngine.Tests.Durability;
using StorageEngine.Tests.Faults;
using StorageEngine.Tests.Unit;
using StorageEngine.Transactions;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// The checkpointer gives back an idle writer's memory once per pause of the commits. It took that pass as done
/// while a checkpoint run by the application (or a writer) was still writing pages the pass had not seen: those
/// pages, retired when that checkpoint ended, stayed in memory until the next commit, however long the pause, while
/// readers kept coming (the arm64 leg of CI, under qemu, met this order by chance). The pass is done only once no
/// committed page is held or retired.
/// </summary>
public sealed class PagesACheckpointRetiresDuringTheIdleReleaseAreFreedBeforeTheNextCommitTests
{
    private const int Entries = 2_000;
    private const int ValueLength = 900;
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task Pages_retired_by_a_checkpoint_that_ran_alongside_the_idle_release_are_freed_while_readers_keep_coming()
    {
        // Data-file flushes in order from arming: the first (the background checkpoint) is held by first,
        // the second (the application's checkpoint, queued behind it) by second.
        int dataFlushes = 0;
        bool counting = false;
        var second = new IoGate { FlushesOf = path => Volatile.Read(ref counting) && Fault.DataFile(path) && Interlocked.Increment(ref dataFlushes) == 2 };
        var first = new IoGate { FlushesOf = path => Volatile.Read(ref counting) && Fault.DataFile(path) && Volatile.Read(ref dataFlushes) == 1 };
        var fileSystem = new GatedFileSystem(new GatedFileSystem(new MemoryFileSystem(), first), second);
        using var env = StorageEnvironment.Open(new StorageEnvironmentOptions
        {
            Path = "/db",
            FileSystem = fileSystem,
            // The idle delay is a tenth of the interval, at least 100 ms.
            CheckpointInterval = TimeSpan.FromMilliseconds(500),
        });
        Write(env, 0, Entries);
        env.Checkpoint();

        await using var readers = new RelayReaders(env, 2, (read, i) =>
            Assert.Equal(TestData.Value(i % Entries, ValueLength), read.OpenTree("t").Get(TestData.Key(i % Entries))), Patience);
        Task? checkpoint = null;
        try
        {
            first.Arm();
            second.Arm();
            Volatile.Write(ref counting, true);
            // A commit, then the pause: the background checkpoint writes it and waits at its flush.
            Write(env, 0, Entries);
            Assert.True(first.WaitUntilReached(Patience), "no background checkpoint began after the commits paused");
            // A commit meanwhile, and a checkpoint of the application's, queued behind the background one.
            Write(env, 0, 50);
            checkpoint = Task.Run(env.Checkpoint);
            // Past the idle delay: once the background checkpoint ends, its idle pass runs while the application's
            // checkpoint writes the last commit's pages.
            Thread.Sleep(300);
            first.Release();
            Assert.True(second.WaitUntilReached(Patience), "the application's checkpoint did not reach its flush");
            // The idle pass frees what the background checkpoint retired (a few pages the application's checkpoint
            // has collected wait for it to end).
            Assert.True(SpinWait.SpinUntil(() => env.RetiredPageBytes <= 16 * 4096, Patience),
                $"the idle pass left {env.RetiredPageBytes} bytes of the background checkpoint's pages");
            second.Release();
            await checkpoint;
            Assert.True(SpinWait.SpinUntil(() => env.RetiredPageBytes == 0, Patience),
                $"with no commit since, {env.RetiredPageBytes} bytes of pages the application's checkpoint retired are still held");
        }
        finally
        {
            first.Release();
            second.Release();
            if (checkpoint is not null) await checkpoint;
        }
        using var read = env.BeginRead();
        Assert.Equal(Entries, read.OpenTree("t").Count);
    }

    private static void Write(StorageEnvironment env, int from, int to)
    {
        using var tx = env.BeginWrite();
        var tree = tx.TryOpenTree("t", out var existing) ? existing : tx.CreateTree("t");
        for (int i = from; i < to; i++) tree.Put(TestData.Key(i), TestData.Value(i, ValueLength));
        tx.Commit();
    }
}
