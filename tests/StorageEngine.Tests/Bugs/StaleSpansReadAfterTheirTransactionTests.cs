using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// A span a transaction returned, read after the transaction ended (a misuse reachable from safe C#), reads
/// stale or reused bytes while the environment is open, and never crashes the process. It once did: the
/// mapping the span pointed into was unmapped when the file grew and no reader used it any more, and a
/// buffer of pages not yet checkpointed was freed once a checkpoint wrote it.
/// </summary>
public sealed class StaleSpansReadAfterTheirTransactionTests : IDisposable
{
    private const int LargeValueBytes = 300_000;
    private readonly TempDirectory _dir = new("stale-span");

    public void Dispose() => _dir.Dispose();

    private StorageEnvironment OpenSmall() => StorageEnvironment.Open(new StorageEnvironmentOptions
    {
        Path = _dir.Path,
        JournalFileSize = 1 << 20,
        CheckpointThreshold = 1 << 20,
    });

    /// <summary>Reads every byte, as an application's use of a stale span would.</summary>
    private static long Touch(ReadOnlySpan<byte> span)
    {
        long sum = 0;
        foreach (byte b in span) sum += b;
        return sum;
    }

    /// <summary>
    /// Commits enough to grow the data file several times (each growth maps it anew), checkpoints, and begins
    /// and commits once more, which is where replaced mappings and checkpointed buffers used to be released.
    /// Returns how many bytes the data file grew by.
    /// </summary>
    private static long GrowCheckpointAndCommitAgain(StorageEnvironment env)
    {
        long before = env.GetStatistics().DataFileBytes;
        var filler = TestData.Value(7, 4000);
        for (int round = 0; round < 12; round++)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("filler");
            for (int i = 0; i < 300; i++) tree.Put(TestData.Key(round * 1000 + i), filler);
            tx.Commit();
            env.Checkpoint();
        }
        for (int round = 0; round < 3; round++)
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("filler").Put(TestData.Key(round), filler);
            tx.Commit();
        }
        return env.GetStatistics().DataFileBytes - before;
    }

    /// <summary>
    /// Checkpoints, then begins a write transaction, which is where buffers a checkpoint wrote out were released
    /// (freed, when the pool had no room for them): a stale span into one is read right after, before anything
    /// else can take the freed memory.
    /// </summary>
    private static void CheckpointAndRelease(StorageEnvironment env)
    {
        env.Checkpoint();
        using (env.BeginWrite())
        {
        }
    }

    private static byte[]? Get(StorageEnvironment env, byte[] key)
    {
        using var read = env.BeginRead();
        return read.OpenTree("t").Get(key);
    }

    private static void Commit(StorageEnvironment env, int key, byte[] value)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(TestData.Key(key), value);
        tx.Commit();
    }

    [Fact]
    public void A_value_span_from_the_mapping_is_readable_after_its_transaction_ended_and_the_file_was_remapped()
    {
        using var env = OpenSmall();
        var value = TestData.Value(1, 100);
        Commit(env, 1, value);
        env.Checkpoint();

        ReadOnlySpan<byte> stale;
        using (var read = env.BeginRead())
        {
            Assert.True(read.OpenTree("t").TryGet(TestData.Key(1), out stale));
        }
        Assert.True(GrowCheckpointAndCommitAgain(env) > 0, "the data file must grow, so that it is mapped anew");

        Assert.Equal(value.Length, stale.Length);
        Touch(stale);
        Assert.Equal(value, Get(env, TestData.Key(1)));
    }

    [Fact]
    public void A_value_span_from_pages_not_yet_checkpointed_is_readable_after_a_checkpoint_wrote_them()
    {
        using var env = OpenSmall();
        var value = TestData.Value(2, 100);
        Commit(env, 2, value);

        ReadOnlySpan<byte> stale;
        using (var read = env.BeginRead())
        {
            Assert.True(read.OpenTree("t").TryGet(TestData.Key(2), out stale));
        }
        Commit(env, 2, TestData.Value(3, 100));
        CheckpointAndRelease(env);
        Touch(stale);
        GrowCheckpointAndCommitAgain(env);

        Assert.Equal(value.Length, stale.Length);
        Touch(stale);
    }

    [Fact]
    public void A_large_value_span_from_pages_not_yet_checkpointed_is_readable_after_a_checkpoint_wrote_them()
    {
        using var env = OpenSmall();
        var value = TestData.Value(3, LargeValueBytes);
        Commit(env, 3, value);

        ReadOnlySpan<byte> stale;
        using (var read = env.BeginRead())
        {
            Assert.True(read.OpenTree("t").TryGet(TestData.Key(3), out stale));
        }
        // Replacing the value frees its old overflow run as well.
        Commit(env, 3, TestData.Value(4, LargeValueBytes));
        CheckpointAndRelease(env);
        Touch(stale);
        GrowCheckpointAndCommitAgain(env);

        Assert.Equal(LargeValueBytes, stale.Length);
        Touch(stale);
        Assert.Equal(TestData.Value(4, LargeValueBytes), Get(env, TestData.Key(3)));
    }

    [Fact]
    public void A_large_value_span_from_the_mapping_is_readable_after_its_transaction_ended_and_the_file_was_remapped()
    {
        using var env = OpenSmall();
        var value = TestData.Value(5, LargeValueBytes);
        Commit(env, 5, value);
        env.Checkpoint();

        ReadOnlySpan<byte> stale;
        using (var read = env.BeginRead())
        {
            Assert.True(read.OpenTree("t").TryGet(TestData.Key(5), out stale));
        }
        GrowCheckpointAndCommitAgain(env);

        Assert.Equal(LargeValueBytes, stale.Length);
        Touch(stale);
    }

    [Fact]
    public void A_large_value_span_from_an_aborted_write_transaction_is_readable_after_the_abort()
    {
        using var env = OpenSmall();
        ReadOnlySpan<byte> stale;
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            tree.Put(TestData.Key(6), TestData.Value(6, LargeValueBytes));
            Assert.True(tree.TryGet(TestData.Key(6), out stale));
        }
        Touch(stale);
        GrowCheckpointAndCommitAgain(env);

        Assert.Equal(LargeValueBytes, stale.Length);
        Touch(stale);
    }

    [Fact]
    public void A_span_of_a_value_larger_than_an_allocator_heap_is_readable_after_its_write_transaction_aborted()
    {
        // Larger than a glibc arena's 64 MiB heap, so its buffer is a mapping of its own, which freeing unmaps.
        const int huge = 72 << 20;
        using var env = StorageEnvironment.Open(TestData.SafeOptions(new StorageEngine.Platform.MemoryFileSystem()));
        ReadOnlySpan<byte> stale;
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            tree.Put(TestData.Key(6), new byte[huge]);
            Assert.True(tree.TryGet(TestData.Key(6), out stale));
        }

        Assert.Equal(huge, stale.Length);
        Touch(stale);
    }

    [Fact]
    public void Cursor_key_and_value_spans_are_readable_after_their_transaction_ended()
    {
        using var env = OpenSmall();
        Commit(env, 7, TestData.Value(7, 50));
        Commit(env, 8, TestData.Value(8, LargeValueBytes));

        ReadOnlySpan<byte> key, value, largeValue;
        using (var read = env.BeginRead())
        using (var cursor = read.OpenTree("t").CreateCursor())
        {
            Assert.True(cursor.First());
            key = cursor.Key;
            value = cursor.Value;
            Assert.True(cursor.Next());
            largeValue = cursor.Value;
        }
        Commit(env, 8, TestData.Value(9, LargeValueBytes));
        CheckpointAndRelease(env);
        Touch(largeValue);
        GrowCheckpointAndCommitAgain(env);

        Assert.Equal(TestData.Key(7).Length, key.Length);
        Assert.Equal(50, value.Length);
        Assert.Equal(LargeValueBytes, largeValue.Length);
        Touch(key);
        Touch(value);
        Touch(largeValue);
    }

    [Fact]
    public unsafe void The_page_buffer_pool_parks_what_it_does_not_keep_ready_instead_of_freeing_it()
    {
        using var pool = new StorageEngine.Transactions.PageBufferPool(4096, 0);
        int ready = StorageEngine.Transactions.PageBufferPool.MaxPooledBytesPerLength / 4096;
        var buffers = Enumerable.Range(0, ready + 3).Select(_ => pool.Rent()).ToList();
        var large = pool.Rent(100);
        foreach (var buffer in buffers) pool.Return(buffer);
        pool.Return(large);

        Assert.Equal(4, pool.ParkedCount);
        // Still mapped: a stale span into it reads (zeros on Linux) instead of faulting.
        Touch(new ReadOnlySpan<byte>(large.Pointer, large.Length));
        Touch(new ReadOnlySpan<byte>(buffers[^1].Pointer, buffers[^1].Length));
        // A parked run serves a later run of its power-of-two class, at the length asked for.
        var again = pool.Rent(120);
        Assert.Same(large, again);
        Assert.Equal(120 * 4096, again.Length);
        Assert.Equal(3, pool.ParkedCount);
    }

    [Fact]
    public void An_in_memory_environment_keeps_stale_spans_readable_across_growth()
    {
        using var env = StorageEnvironment.CreateInMemory();
        Commit(env, 10, TestData.Value(10, LargeValueBytes));
        ReadOnlySpan<byte> stale;
        using (var read = env.BeginRead())
        {
            Assert.True(read.OpenTree("t").TryGet(TestData.Key(10), out stale));
        }
        Commit(env, 10, TestData.Value(11, 10));
        var filler = TestData.Value(7, 4000);
        for (int round = 0; round < 12; round++)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("filler");
            for (int i = 0; i < 300; i++) tree.Put(TestData.Key(round * 1000 + i), filler);
            tx.Commit();
        }

        Assert.Equal(LargeValueBytes, stale.Length);
        Touch(stale);
    }
}
