using StorageEngine.Platform;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// A page freed after the last checkpoint is reused only once a checkpoint covers it, unless it was written after
/// the last checkpoint began (a young page, reused as soon as no reader sees it). A writer that outruns the
/// background checkpoints (slow syncs, or commits kept in flight) must not grow the data file by their lag: past
/// four checkpoint thresholds of waiting pages it runs a checkpoint itself before it grows the file, and a power
/// loss at any point of that keeps every acknowledged commit.
/// </summary>
public sealed class FreedPageReuseTests
{
    private const int Keys = 3_000;
    private const int Transactions = 300;
    private const int UpdatesPerTransaction = 40;
    private const long CheckpointThreshold = 256 << 10;
    private const int PageSize = 4096;
    // Commits the background checkpointer falls behind by: each of its data-file syncs waits for this many.
    private const int CheckpointLag = 50;

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_writer_that_outruns_checkpoints_reuses_freed_pages_instead_of_growing_the_file(bool commitsInFlight)
    {
        // Young pages wait too here: reusing them keeps most of the lag from growing the file (see the next test).
        var (bounded, usedPages, mostFreedByOne) = await RunChurn(commitsInFlight, writerMayCheckpoint: true, youngReuse: false);
        var (unbounded, _, _) = await RunChurn(commitsInFlight, writerMayCheckpoint: false, youngReuse: false);

        // Waiting pages reach the limit, the last transaction's frees come on top, and the file may hold a
        // bitmap section's slack: nothing proportional to the number of transactions.
        long limit = 4 * CheckpointThreshold / PageSize;
        long bound = usedPages + limit + 2 * mostFreedByOne + 64;
        Assert.True(bounded <= bound, $"the data file grew to {bounded} pages; {usedPages} in use, bound {bound}.");
        // The same churn without the writer's checkpoints shows the lag the test creates is real.
        Assert.True(unbounded > 2 * bound, $"without the writer's checkpoints the file reached only {unbounded} pages (bound {bound}): the checkpoints did not lag.");
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Pages_written_and_freed_since_a_checkpoint_began_are_reused_without_waiting_for_the_next(bool commitsInFlight)
    {
        var (early, usedPages, _) = await RunChurn(commitsInFlight, writerMayCheckpoint: false, youngReuse: true);
        var (late, _, _) = await RunChurn(commitsInFlight, writerMayCheckpoint: false, youngReuse: false);

        // With checkpoints lagging and no writer's checkpoint to catch up, only the pages the checkpointed state
        // holds wait: the file grows far less than when every freed page waits.
        Assert.True(early - usedPages < (late - usedPages) / 2,
            $"reusing young pages left the file at {early} pages, against {late} without; {usedPages} in use.");
    }

    [Theory]
    [InlineData(DurabilityMode.Safe)]
    [InlineData(DurabilityMode.Lazy)]
    public void Large_values_written_over_reused_young_pages_survive_checkpoints_and_a_power_loss(DurabilityMode durability)
    {
        // Single pages written and freed between checkpoints are reused at once, here by large values taking
        // several of them in one run while their older versions are still held for the checkpoint.
        var fileSystem = new MemoryFileSystem();
        var options = new StorageEnvironmentOptions
        {
            Path = "/db",
            FileSystem = fileSystem,
            Durability = durability,
            CheckpointThreshold = long.MaxValue,
            CheckpointInterval = TimeSpan.FromHours(1),
        };
        var random = new Random(5);
        var model = new Dictionary<int, byte[]>();
        var environment = StorageEnvironment.Open(options);
        Load(environment, model, random);
        environment.Checkpoint();
        for (int round = 0; round < 6; round++)
        {
            for (int i = 0; i < 30; i++)
            {
                using var churn = environment.BeginWrite();
                UpdateRandomValues(churn, model, random);
                churn.Commit();
            }
            using (var large = environment.BeginWrite())
            {
                var tree = large.OpenTree("t")!;
                for (int j = 0; j < 8; j++)
                {
                    int key = random.Next(Keys);
                    var value = new byte[random.Next(5_000, 40_000)];
                    random.NextBytes(value);
                    tree.Put(Key(key), model[key] = value);
                }
                large.Commit();
            }
            if (round % 2 == 1) environment.Checkpoint();
        }
        AssertContents(environment, model);
        environment.Checkpoint();
        Assert.True(environment.Check().IsHealthy);
        environment.SimulateCrash();
        fileSystem.SimulatePowerLoss(random);

        using var reopened = StorageEnvironment.Open(options);
        AssertContents(reopened, model);
        var report = reopened.Check();
        Assert.True(report.IsHealthy, string.Join("; ", report.Problems));
    }

    [Theory]
    [InlineData(3)]
    [InlineData(11)]
    [InlineData(29)]
    public void A_power_loss_while_the_writer_runs_checkpoints_keeps_every_acknowledged_commit(int seed)
    {
        var random = new Random(seed);
        var lagging = new LaggingCheckpoints(CheckpointLag);
        var fileSystem = lagging.FileSystem;
        var options = Options(fileSystem);
        var acknowledged = new Dictionary<int, byte[]>();
        Dictionary<int, byte[]>? cutShort = null;
        var environment = StorageEnvironment.Open(options);
        LetHeldSyncsFinishForTheWritersCheckpoints(environment, lagging);
        Load(environment, acknowledged, random);
        // Each transaction makes a few dozen file changes (its journal write, and the checkpoints' writes and syncs).
        fileSystem.CrashAfter(random.Next(200, 4_000));
        for (int i = 0; i < Transactions && !fileSystem.HasCrashed; i++)
        {
            var attempt = new Dictionary<int, byte[]>(acknowledged);
            try
            {
                using var transaction = environment.BeginWrite();
                UpdateRandomValues(transaction, attempt, random);
                transaction.Commit();
                acknowledged = attempt;
                lagging.Committed();
            }
            catch (Exception) when (fileSystem.HasCrashed)
            {
                cutShort = attempt;
            }
        }
        lagging.ReleaseAll();
        Assert.True(fileSystem.HasCrashed, "the run ended before the crash point");
        environment.SimulateCrash();
        fileSystem.Disarm();
        fileSystem.Inner.SimulatePowerLoss(random, tearWrites: true);

        using var reopened = StorageEnvironment.Open(options);
        var report = reopened.Check();
        Assert.True(report.IsHealthy, string.Join("; ", report.Problems));
        // The commit the crash cut short may have reached the journal or not: wholly present or wholly absent.
        if (cutShort is null || !Matches(reopened, cutShort)) AssertContents(reopened, acknowledged);
    }

    /// <summary>
    /// Rewrites random values of a loaded tree while the background checkpoints lag <see cref="CheckpointLag"/>
    /// commits behind, reusing young freed pages early or not. Returns the file's pages at the end, the pages in use then, and the most
    /// pages one transaction freed.
    /// </summary>
    private static async Task<(long Pages, long Used, long MostFreedByOne)> RunChurn(bool commitsInFlight, bool writerMayCheckpoint, bool youngReuse)
    {
        var lagging = new LaggingCheckpoints(CheckpointLag);
        var fileSystem = lagging.FileSystem;
        var options = Options(fileSystem);
        var model = new Dictionary<int, byte[]>();
        var random = new Random(17);
        long mostFreed = 0;
        using (var environment = StorageEnvironment.Open(options))
        {
            if (writerMayCheckpoint) LetHeldSyncsFinishForTheWritersCheckpoints(environment, lagging);
            else environment.FreeSpace.MakeReusable = null;
            environment.FreeSpace.ReleasesYoungPages = youngReuse;
            Load(environment, model, random);
            var inFlight = new Queue<ValueTask>();
            for (int i = 0; i < Transactions; i++)
            {
                using var transaction = environment.BeginWrite();
                long waitingBefore = environment.FreeSpace.WaitingPages;
                UpdateRandomValues(transaction, model, random);
                // Pages it freed, less any a checkpoint it ran made reusable: a lower bound is enough here.
                mostFreed = Math.Max(mostFreed, environment.FreeSpace.WaitingPages - waitingBefore);
                if (commitsInFlight)
                {
                    inFlight.Enqueue(transaction.CommitAsync());
                    while (inFlight.Count >= 4) await inFlight.Dequeue();
                }
                else transaction.Commit();
                lagging.Committed();
            }
            while (inFlight.Count > 0) await inFlight.Dequeue();
            lagging.ReleaseAll();
            Assert.True(lagging.HeldSyncs > 0, "no background checkpoint ran during the churn: the test created no lag");

            var statistics = environment.GetStatistics();
            var report = environment.Check();
            Assert.True(report.IsHealthy, string.Join("; ", report.Problems));
            AssertContents(environment, model);
            var result = (statistics.PageCount, statistics.PageCount - statistics.FreePages, mostFreed);
            environment.SimulateCrash();
            fileSystem.Inner.SimulatePowerLoss();
            using var reopened = StorageEnvironment.Open(options);
            AssertContents(reopened, model);
            return result;
        }
    }

    /// <summary>
    /// A writer's checkpoint waits for the background one it outran: its held sync is let go first, as a slow
    /// sync would have ended by itself.
    /// </summary>
    private static void LetHeldSyncsFinishForTheWritersCheckpoints(StorageEnvironment environment, LaggingCheckpoints lagging)
    {
        var checkpoint = environment.FreeSpace.MakeReusable!;
        environment.FreeSpace.MakeReusable = () =>
        {
            lagging.LetHeldSyncFinish();
            return checkpoint();
        };
    }

    private static StorageEnvironmentOptions Options(IFileSystem fileSystem) => new()
    {
        Path = "/db",
        FileSystem = fileSystem,
        CheckpointThreshold = CheckpointThreshold,
        CheckpointInterval = TimeSpan.FromMinutes(10),
    };

    private static void Load(StorageEnvironment environment, Dictionary<int, byte[]> model, Random random)
    {
        using var load = environment.BeginWrite();
        var tree = load.CreateTree("t");
        for (int key = 0; key < Keys; key++) tree.Put(Key(key), model[key] = Value(random));
        load.Commit();
    }

    private static void UpdateRandomValues(WriteTransaction transaction, Dictionary<int, byte[]> model, Random random)
    {
        var tree = transaction.OpenTree("t")!;
        for (int j = 0; j < UpdatesPerTransaction; j++)
        {
            int key = random.Next(Keys);
            tree.Put(Key(key), model[key] = Value(random));
        }
    }

    private static bool Matches(StorageEnvironment environment, Dictionary<int, byte[]> model)
    {
        using var read = environment.BeginRead();
        var tree = read.OpenTree("t")!;
        return tree.Count == model.Count && model.All(pair => tree.Get(Key(pair.Key)) is { } value && value.AsSpan().SequenceEqual(pair.Value));
    }

    private static void AssertContents(StorageEnvironment environment, Dictionary<int, byte[]> model)
    {
        using var read = environment.BeginRead();
        var tree = read.OpenTree("t")!;
        Assert.Equal(model.Count, tree.Count);
        foreach (var (key, value) in model) Assert.Equal(value, tree.Get(Key(key)));
    }

    private static byte[] Key(int key) => BitConverter.GetBytes(System.Buffers.Binary.BinaryPrimitives.ReverseEndianness(key));

    private static byte[] Value(Random random)
    {
        var value = new byte[300];
        random.NextBytes(value);
        return value;
    }
}
