using System.Collections.Concurrent;
using StorageEngine.Platform;

namespace StorageEngine.Tests.Fuzz;

/// <summary>
/// One seeded case: build an environment, damage a copy of its files, then open it and use it as an application
/// would. The engine may succeed or report a <see cref="CorruptionException"/> that names one of the
/// environment's files and a non-negative offset; anything else is a bug.
/// </summary>
internal static class FuzzCase
{
    private static readonly ConcurrentDictionary<int, Lazy<EnvironmentImage>> Donors = new();

    public static EnvironmentImage Donor(int seed) =>
        Donors.GetOrAdd(seed, s => new Lazy<EnvironmentImage>(() => FuzzEnvironmentBuilder.Build(s).Image)).Value;

    /// <summary>The case without running it: how the environment is built and damaged (for reporting a hang).</summary>
    public static FuzzCaseResult Describe(int seed)
    {
        var result = Prepare(seed).Result;
        result.Phase = "(unknown: the case did not finish)";
        return result;
    }

    public static FuzzCaseResult Run(int seed)
    {
        FuzzCaseResult result;
        MemoryFileSystem fileSystem;
        try
        {
            (result, fileSystem) = Prepare(seed);
        }
        catch (Exception e)
        {
            // Building works on undamaged files only: a failure there is a bug too.
            return new FuzzCaseResult { Seed = seed, Failure = "building the environment failed: " + e };
        }
        var options = FuzzEnvironmentBuilder.Options(fileSystem);
        try
        {
            Use(options, result);
            result.Phase = "done";
        }
        catch (CorruptionException e)
        {
            result.Corruption = e;
            // Compared as Path makes them: on Windows the directory of "/db\data.sedb" is "\db".
            string directory = Path.GetDirectoryName(e.FilePath) ?? "";
            string environmentDirectory = Path.GetDirectoryName(Path.Combine(EnvironmentImage.Directory, EnvironmentImage.DataFileName)) ?? "";
            bool named = directory == environmentDirectory && fileSystem.Exists(e.FilePath)
                && (Path.GetFileName(e.FilePath) == EnvironmentImage.DataFileName || Path.GetFileName(e.FilePath).StartsWith("journal", StringComparison.Ordinal));
            if (!named) result.Failure = $"the corruption report names '{e.FilePath}', which is not a file of the environment: {e}";
            else if (e.Offset < 0) result.Failure = $"the corruption report has a negative offset: {e}";
        }
        catch (Exception e)
        {
            result.Failure = e.ToString();
        }
        return result;
    }

    private static (FuzzCaseResult Result, MemoryFileSystem FileSystem) Prepare(int seed)
    {
        var (pristine, earlier, story) = FuzzEnvironmentBuilder.Build(seed);
        var damaged = pristine.Clone();
        var mutations = MutationPlanner.Apply(new Random(seed), damaged, earlier, Donor);
        return (new FuzzCaseResult { Seed = seed, Story = story, Mutations = mutations }, damaged.ToFileSystem());
    }

    private static void Use(StorageEnvironmentOptions options, FuzzCaseResult result)
    {
        result.Phase = "open";
        var environment = StorageEnvironment.Open(options);
        try
        {
            result.Phase = "read";
            EnvironmentReader.ReadEverything(environment);
            result.Phase = "check";
            result.Healthy = environment.Check().IsHealthy;
            result.Phase = "commit";
            CommitOneMore(environment, result.Seed);
            result.Phase = "close";
        }
        finally
        {
            environment.Dispose();
        }

        result.Phase = "reopen";
        using var reopened = StorageEnvironment.Open(options);
        result.Phase = "reread";
        EnvironmentReader.ReadEverything(reopened);
        result.Phase = "recheck";
        reopened.Check();
        result.Phase = "close again";
    }

    private static void CommitOneMore(StorageEnvironment environment, int seed)
    {
        var random = new Random(seed);
        using var tx = environment.BeginWrite();
        var extra = tx.CreateTree("fuzz-extra");
        extra.Put(FuzzEnvironmentBuilder.BytesKey(seed % 1000), new byte[random.Next(0, 3000)]);
        if (tx.TryOpenTree(FuzzEnvironmentBuilder.BytesTree, out var bytes) && bytes.Options == TreeOptions.None)
        {
            for (int i = 0; i < 20; i++) bytes.Put(FuzzEnvironmentBuilder.BytesKey(random.Next(2000)), new byte[random.Next(0, 200)]);
            for (int i = 0; i < 20; i++) bytes.Delete(FuzzEnvironmentBuilder.BytesKey(random.Next(2000)));
        }
        if (tx.TryOpenTree(FuzzEnvironmentBuilder.Int64Tree, out var ints) && ints.Options == TreeOptions.Int64Keys)
        {
            for (int i = 0; i < 10; i++) ints.Put(random.NextInt64(-1_000_000, 1_000_000), new byte[8]);
        }
        if (tx.TryOpenTree(FuzzEnvironmentBuilder.BlobTree, out var blobs) && blobs.Options == TreeOptions.None)
        {
            blobs.Put(FuzzEnvironmentBuilder.BlobKey(random.Next(16)), new byte[random.Next(1500, 9000)]);
            blobs.Delete(FuzzEnvironmentBuilder.BlobKey(random.Next(16)));
        }
        tx.Commit();
    }
}
