using StorageEngine.Platform;
using StorageEngine.Tests.Unit;
using StorageEngine.Transactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// Once commits pause, the checkpointer gives back the memory of the page buffers a burst of them left: the pages
/// the checkpoint wrote, once the readers that could still read them have ended (however many readers came
/// since), and the writer's pool down to <see cref="CommitPipeline.IdleReadyBytes"/>. A reader open since before
/// the checkpoint keeps every byte it reads, and writing afterwards reuses the buffers with every value intact.
/// </summary>
public sealed class IdleMemoryTests
{
    private const int Entries = 6_000;
    private const int ValueLength = 900;
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(20);

    private static StorageEnvironmentOptions Options(MemoryFileSystem fileSystem) => new()
    {
        Path = "/db",
        FileSystem = fileSystem,
        Durability = DurabilityMode.Safe,
        // The idle delay is a tenth of the interval, at least 100 ms.
        CheckpointInterval = TimeSpan.FromMilliseconds(500),
    };

    [Fact]
    public void After_commits_pause_the_pooled_buffers_beyond_the_floor_are_given_back_and_later_commits_reuse_them()
    {
        var fileSystem = new MemoryFileSystem();
        using (var env = StorageEnvironment.Open(Options(fileSystem)))
        {
            // A checkpoint, then a writer: the pages the checkpoint wrote go back to the pool, whose ready buffers
            // now hold several megabytes. Where the machine is slow (qemu), the pause after them may already have
            // trimmed the pool before it is read: then another burst.
            long filled = 0;
            for (int attempt = 0; attempt < 5 && filled <= 2 * CommitPipeline.IdleReadyBytes; attempt++)
            {
                Write(env, seed: 1);
                env.Checkpoint();
                env.BeginWrite().Dispose();
                filled = env.PooledReadyBytes;
            }
            Assert.True(filled > 2 * CommitPipeline.IdleReadyBytes, $"the pool holds {filled} bytes after the burst: the test checks nothing");

            Assert.True(SpinWait.SpinUntil(() => env.PooledReadyBytes <= CommitPipeline.IdleReadyBytes, Patience),
                $"the pool still holds {env.PooledReadyBytes} bytes of ready buffers after commits paused");

            // The parked buffers serve the next burst: their contents are whatever the OS left, so every value is checked.
            Write(env, seed: 2);
            AssertValues(env, seed: 2);
        }
        using var reopened = StorageEnvironment.Open(Options(fileSystem));
        AssertValues(reopened, seed: 2);
        Assert.True(reopened.Check().IsHealthy);
    }

    [Fact]
    public async Task While_readers_keep_coming_and_no_commit_does_the_pages_the_checkpoint_wrote_are_freed()
    {
        using var env = StorageEnvironment.Open(Options(new MemoryFileSystem()));
        Write(env, seed: 1);
        // Readers one after another on two threads for the whole test: one is registered at every moment.
        await using var readers = new RelayReaders(env, 2, (read, i) =>
            Assert.Equal(TestData.Value(Entries + i % Entries, ValueLength), read.OpenTree("t").Get(TestData.Key(Scatter(i % Entries)))), Patience);
        // The same values again, so that the readers see the same whatever snapshot they are at, and the
        // checkpoint right after them has pages to write and retire. The background checkpointer (every 500 ms)
        // may take them first where the machine is slow (qemu), leaving the explicit one nothing: then again.
        for (int attempt = 0; attempt == 0 || (attempt < 5 && env.RetiredPageBytes == 0); attempt++)
        {
            Write(env, seed: 1);
            env.Checkpoint();
        }
        Assert.True(env.RetiredPageBytes > 0, "no checkpoint retired anything while the readers ran: the test checks nothing");
        Assert.True(SpinWait.SpinUntil(() => env.RetiredPageBytes == 0 && env.PooledReadyBytes <= CommitPipeline.IdleReadyBytes, Patience),
            $"after the pause {env.RetiredPageBytes} bytes of retired pages and {env.PooledReadyBytes} of ready buffers are still held");
    }

    [Fact]
    public unsafe void A_reader_open_since_before_the_checkpoint_keeps_every_byte_it_read_until_it_ends()
    {
        using var env = StorageEnvironment.Open(Options(new MemoryFileSystem()));
        var held = new List<(IntPtr Pointer, int Index)>();
        ReadTransaction? reader = null;
        try
        {
            // The background checkpointer (every 500 ms) may write the pages before the reader begins where the
            // machine is slow (qemu), leaving the explicit checkpoint nothing to retire: then the same values again.
            for (int attempt = 0; attempt < 5 && env.RetiredPageBytes == 0; attempt++)
            {
                reader?.Dispose();
                held.Clear();
                Write(env, seed: 1);
                reader = env.BeginRead();
                var tree = reader.OpenTree("t");
                // Before the checkpoint every committed page is read from its buffer: these spans point into them.
                for (int i = 0; i < Entries; i += 37)
                {
                    Assert.True(tree.TryGet(TestData.Key(Scatter(i)), out var value));
                    fixed (byte* pointer = value) held.Add(((IntPtr)pointer, i));
                }
                env.Checkpoint();
            }
            Assert.True(env.RetiredPageBytes > 0, "no checkpoint retired anything while the reader was open: the test checks nothing");
            // Several pauses' worth of release attempts while the reader stays open, with other readers coming and going.
            var until = DateTime.UtcNow + TimeSpan.FromSeconds(1.5);
            while (DateTime.UtcNow < until)
            {
                using (var other = env.BeginRead()) _ = other.OpenTree("t").Count;
                Thread.Sleep(5);
            }
            // Pages retired before this reader began may go (it cannot see them); those the checkpoint retired stay.
            Assert.True(env.RetiredPageBytes > 0, "every retired page was freed while a reader that may read them was open");
            foreach (var (pointer, i) in held)
                Assert.True(new ReadOnlySpan<byte>((void*)pointer, ValueLength).SequenceEqual(TestData.Value(Entries + i, ValueLength)), $"entry {i} changed under its reader");
        }
        finally
        {
            reader?.Dispose();
        }
        Assert.True(SpinWait.SpinUntil(() => env.RetiredPageBytes == 0, Patience), "the retired pages were not freed once their reader ended");
    }

    private static void Write(StorageEnvironment env, int seed)
    {
        for (int first = 0; first < Entries; first += 500)
        {
            using var tx = env.BeginWrite();
            var tree = tx.TryOpenTree("t", out var existing) ? existing : tx.CreateTree("t");
            for (int i = first; i < first + 500; i++) tree.Put(TestData.Key(Scatter(i)), TestData.Value(seed * Entries + i, ValueLength));
            tx.Commit();
        }
    }

    private static void AssertValues(StorageEnvironment env, int seed)
    {
        using var read = env.BeginRead();
        var tree = read.OpenTree("t");
        Assert.Equal(Entries, tree.Count);
        for (int i = 0; i < Entries; i++)
            Assert.Equal(TestData.Value(seed * Entries + i, ValueLength), tree.Get(TestData.Key(Scatter(i))));
    }

    /// <summary>Keys in a scattered order, so that each transaction touches pages all over the tree.</summary>
    private static int Scatter(int i) => (int)((i * 7919L) % Entries);
}
