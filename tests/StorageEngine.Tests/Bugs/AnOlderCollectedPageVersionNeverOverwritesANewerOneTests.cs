using System.Buffers.Binary;
using StorageEngine.Tests.Unit;
using StorageEngine.Transactions;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// A checkpoint collects the pages held in memory, then writes them into the data file. Meanwhile a page number
/// freed young can be reused twice: one commit replaces the collected version in memory, and a later one, past
/// the memory limit, writes its version straight into the data file and forgets the one held (marking only that
/// one superseded). The checkpoint then wrote the version it had collected over the newer one in the file, and
/// readers, finding nothing held, read the old page: "expected a leaf page at tree level 1" or a branch with no
/// entries, raised to the writer as corruption. Random 1 KiB updates with 16 KiB pages in Lazy mode hit it in
/// about half the runs of 50,000 updates over 200,000 values at the default limits; this test, with the limits lowered, failed in 4 runs of 4 before the fix.
/// </summary>
public sealed class AnOlderCollectedPageVersionNeverOverwritesANewerOneTests
{
    private const int Keys = 6_000;
    private const int Updates = 20_000;
    private const int ValueSize = 1024;

    [Fact]
    public void A_version_replaced_after_collection_is_not_written_over_a_direct_write()
    {
        var unwritten = new UnwrittenPages(() => 10);
        using var pool = new PageBufferPool(4096);
        const long page = 7;
        unwritten.Add([Run(pool, page)], transactionId: 3, publishedId: 2);
        var collected = unwritten.Collect();
        var collectedEntry = Assert.Single(collected).Value;

        unwritten.Add([Run(pool, page)], transactionId: 5, publishedId: 4);
        Assert.False(unwritten.NewerVersionWritten(collectedEntry), "a version replaced in memory alone may still be written");
        unwritten.Drop([Run(pool, page)], transactionId: 6);

        Assert.True(unwritten.NewerVersionWritten(collectedEntry),
            "the collected version is older than the one commit 6 wrote into the data file, yet it still counts as writable");
        unwritten.EndCollect(collected);

        unwritten.Add([Run(pool, page)], transactionId: 8, publishedId: 7);
        var next = unwritten.Collect();
        Assert.False(unwritten.NewerVersionWritten(Assert.Single(next).Value), "a version newer than the direct write must be written");
        unwritten.EndCollect(next);
    }

    /// <summary>
    /// The same with two collections out: a backup (which writes the held pages out without taking the checkpoint
    /// lock) collected a version that a commit then replaced; a checkpoint collected, wrote and forgot the newer one.
    /// The backup must not write its older version afterwards.
    /// </summary>
    [Fact]
    public void A_version_collected_by_a_backup_is_not_written_over_a_newer_one_a_checkpoint_wrote()
    {
        var unwritten = new UnwrittenPages(() => 10);
        using var pool = new PageBufferPool(4096);
        const long page = 9;
        unwritten.Add([Run(pool, page)], transactionId: 3, publishedId: 2);
        var backup = unwritten.Collect();
        var backupEntry = Assert.Single(backup).Value;
        unwritten.Add([Run(pool, page)], transactionId: 5, publishedId: 4);

        var checkpoint = unwritten.Collect();
        var checkpointEntry = Assert.Single(checkpoint).Value;
        Assert.False(unwritten.NewerVersionWritten(checkpointEntry));
        unwritten.NoteWritten(checkpoint.AsSpan());
        unwritten.Remove(checkpoint);
        unwritten.EndCollect(checkpoint);

        Assert.True(unwritten.NewerVersionWritten(backupEntry),
            "the backup's version (commit 3) would overwrite the checkpoint's (commit 5) in the data file");
        unwritten.EndCollect(backup);
    }

    [Fact]
    public void Random_updates_past_the_memory_limit_keep_every_value()
    {
        using var directory = new TempDirectory("direct-write");
        var options = new StorageEnvironmentOptions
        {
            Path = directory.Path,
            Durability = DurabilityMode.Lazy,
            PageSize = 16384,
            CheckpointThreshold = 256 << 10,
            UnwrittenPagesLimit = 512 << 10,
        };
        var expected = new int[Keys];
        var random = new Random(31);
        using (var environment = StorageEnvironment.Open(options))
        {
            using (var load = environment.BeginWrite())
            {
                var tree = load.CreateTree("t");
                for (int key = 0; key < Keys; key++) tree.Put(Key(key), Value(key, 0));
                load.Commit();
            }
            for (int i = 1; i <= Updates; i++)
            {
                int key = random.Next(Keys);
                using var update = environment.BeginWrite();
                update.OpenTree("t")!.Put(Key(key), Value(key, i));
                update.Commit();
                expected[key] = i;
            }
            AssertValues(environment, expected);
            var report = environment.Check();
            Assert.True(report.IsHealthy, string.Join("; ", report.Problems));
        }
        using (var reopened = StorageEnvironment.Open(options))
        {
            AssertValues(reopened, expected);
        }
    }

    private static CommittedRun Run(PageBufferPool pool, long page) => new(page, 1, pool.Rent(), IsOverflow: false);

    private static void AssertValues(StorageEnvironment environment, int[] expected)
    {
        using var read = environment.BeginRead();
        var tree = read.OpenTree("t");
        for (int key = 0; key < Keys; key++)
        {
            Assert.True(tree.TryGet(Key(key), out var value), $"key {key} is missing");
            Assert.True(value.SequenceEqual(Value(key, expected[key])), $"key {key} does not hold version {expected[key]}");
        }
    }

    private static byte[] Key(int key)
    {
        var bytes = new byte[8];
        BinaryPrimitives.WriteInt64BigEndian(bytes, key);
        return bytes;
    }

    private static byte[] Value(int key, int version)
    {
        var value = new byte[ValueSize];
        new Random(key * 7919 + version).NextBytes(value);
        return value;
    }
}
