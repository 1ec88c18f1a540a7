using StorageEngine.Platform;
using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// A reader held open while many commits rewrite the same entries keeps every page they free from being reused,
/// so the data file grows by all of them (4,000 commits of 50 x 1 KB grew a 3 MiB file to 922 MiB). The file
/// does not shrink afterwards by itself, but the space is not lost: once the reader ends, later commits reuse
/// the free pages instead of growing the file, and CompactTo writes a copy of the live data's size.
/// </summary>
public sealed class FileGrownUnderALongReaderIsReclaimedByCompactionTests
{
    private const int Keys = 2_000;

    private static void Rewrite(StorageEnvironment env, int commits, int seed)
    {
        var random = new Random(seed);
        var value = TestData.Value(seed, 1024);
        for (int c = 0; c < commits; c++)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("t");
            for (int i = 0; i < 50; i++) tree.Put(TestData.Key(random.Next(Keys)), value);
            tx.Commit();
        }
    }

    [Fact]
    public void Pages_freed_under_a_long_reader_are_reused_once_it_ends_and_compaction_gives_the_space_back()
    {
        var fs = new MemoryFileSystem(simulatesPowerLoss: false);
        var options = TestData.SafeOptions(fs);
        options.Durability = DurabilityMode.Lazy;
        using var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (int i = 0; i < Keys; i++) tree.Put(TestData.Key(i), TestData.Value(i, 1024));
            tx.Commit();
        }
        long initialPages = env.GetStatistics().PageCount;

        var reader = env.BeginRead();
        Rewrite(env, 300, seed: 1);
        long grownPages = env.GetStatistics().PageCount;
        Assert.True(grownPages > 5 * initialPages, $"a held reader makes the file grow ({initialPages} -> {grownPages} pages)");
        reader.Dispose();

        // Without the reader, the pages it held become free again and commits take them instead of new ones.
        Rewrite(env, 300, seed: 2);
        env.Checkpoint();
        Rewrite(env, 300, seed: 3);
        var stats = env.GetStatistics();
        Assert.True(stats.PageCount <= grownPages + grownPages / 20, $"commits after the reader ended reuse its pages ({grownPages} -> {stats.PageCount} pages)");
        Assert.True(stats.FreePages > stats.PageCount / 2, $"{stats.FreePages} of {stats.PageCount} pages are free");

        var result = env.CompactTo("/compacted");
        Assert.True(result.DestinationPageCount < grownPages / 4, $"compaction copies the live pages only ({result.DestinationPageCount} of {grownPages})");
        using var copy = StorageEnvironment.Open(TestData.SafeOptions(fs, "/compacted"));
        using var read = copy.BeginRead();
        Assert.Equal(Keys, read.OpenTree("t").Count);
    }
}
