using System.Text;
using StorageEngine.Platform;

namespace StorageEngine.Tests.Fuzz;

/// <summary>
/// Builds a small journaled environment from a seed: named trees of byte keys, integer keys and overflow
/// values, updates and deletes over several commits, some checkpointed and some left only in the journal,
/// closed cleanly or abandoned as by a crash.
/// </summary>
internal static class FuzzEnvironmentBuilder
{
    public const string BytesTree = "alpha";
    public const string Int64Tree = "ints";
    public const string BlobTree = "blobs";
    public const string TemporaryTree = "temp";

    /// <summary>Options for the environment in <see cref="EnvironmentImage.Directory"/> of <paramref name="fileSystem"/>; no background checkpoints.</summary>
    public static StorageEnvironmentOptions Options(IFileSystem fileSystem) => new()
    {
        Path = EnvironmentImage.Directory,
        Durability = DurabilityMode.Safe,
        FileSystem = fileSystem,
        JournalFileSize = 1 << 20,
        CheckpointThreshold = long.MaxValue / 2,
        CheckpointInterval = TimeSpan.FromHours(1),
    };

    /// <summary>
    /// The files of the environment built from <paramref name="seed"/>, the files as they were at an earlier
    /// commit (for lost writes), and a description of how it ended.
    /// </summary>
    public static (EnvironmentImage Image, EnvironmentImage Earlier, string Story) Build(int seed)
    {
        var random = new Random(seed);
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        var story = new StringBuilder();
        EnvironmentImage? earlier = null;

        var environment = StorageEnvironment.Open(options);
        try
        {
            using (var tx = environment.BeginWrite())
            {
                var bytes = tx.CreateTree(BytesTree);
                var ints = tx.CreateTree(Int64Tree, TreeOptions.Int64Keys);
                var blobs = tx.CreateTree(BlobTree);
                int keys = random.Next(150, 350);
                for (int i = 0; i < keys; i++) bytes.Put(BytesKey(random.Next(2000)), Value(random, random.Next(0, 200)));
                int integers = random.Next(80, 250);
                for (int i = 0; i < integers; i++) ints.Put(random.NextInt64(-1_000_000, 1_000_000), Value(random, random.Next(0, 40)));
                int large = random.Next(3, 12);
                for (int i = 0; i < large; i++) blobs.Put(BlobKey(i), Value(random, random.Next(1500, 20000)));
                tx.Commit();
            }
            story.Append($"created {BytesTree}/{Int64Tree}/{BlobTree}");

            int commits = random.Next(2, 7);
            int earlierAt = random.Next(commits);
            for (int c = 0; c < commits; c++)
            {
                if (c == earlierAt) earlier = EnvironmentImage.Capture(fileSystem);
                if (random.Next(4) == 0)
                {
                    environment.Checkpoint();
                    story.Append(", checkpoint");
                }
                Change(environment, random);
                story.Append(", commit");
            }

            switch (random.Next(4))
            {
                case 0:
                    environment.Dispose();
                    story.Append(", clean close");
                    break;
                case 1:
                    environment.Dispose();
                    environment = StorageEnvironment.Open(options);
                    Change(environment, random);
                    environment.SimulateCrash();
                    story.Append(", clean close, reopen, commit, crash");
                    break;
                default:
                    environment.SimulateCrash();
                    story.Append(", crash");
                    break;
            }
        }
        catch
        {
            environment.SimulateCrash();
            throw;
        }

        fileSystem.SimulateProcessCrash();
        return (EnvironmentImage.Capture(fileSystem), earlier!, story.ToString());
    }

    /// <summary>One commit of random puts, updates and deletes over the trees, sometimes creating or deleting a tree.</summary>
    private static void Change(StorageEnvironment environment, Random random)
    {
        using var tx = environment.BeginWrite();
        var bytes = tx.OpenTree(BytesTree);
        var ints = tx.OpenTree(Int64Tree);
        var blobs = tx.OpenTree(BlobTree);
        int operations = random.Next(20, 120);
        for (int i = 0; i < operations; i++)
        {
            switch (random.Next(10))
            {
                case < 4:
                    bytes.Put(BytesKey(random.Next(2000)), Value(random, random.Next(0, 300)));
                    break;
                case < 6:
                    bytes.Delete(BytesKey(random.Next(2000)));
                    break;
                case 6:
                    ints.Put(random.NextInt64(-1_000_000, 1_000_000), Value(random, random.Next(0, 40)));
                    break;
                case 7:
                    using (var cursor = ints.CreateCursor())
                    {
                        if (cursor.Seek(random.NextInt64(-1_000_000, 1_000_000))) ints.Delete(cursor.Int64Key);
                    }
                    break;
                case 8:
                    blobs.Put(BlobKey(random.Next(16)), Value(random, random.Next(1500, 20000)));
                    break;
                default:
                    blobs.Delete(BlobKey(random.Next(16)));
                    break;
            }
        }
        if (random.Next(3) == 0)
        {
            if (!tx.DeleteTree(TemporaryTree))
            {
                var temporary = tx.CreateTree(TemporaryTree);
                for (int i = 0; i < 40; i++) temporary.Put(BytesKey(i), Value(random, 50));
            }
        }
        tx.Commit();
    }

    public static byte[] BytesKey(int i) => Encoding.ASCII.GetBytes("key-" + i.ToString("D6"));

    public static byte[] BlobKey(int i) => Encoding.ASCII.GetBytes("blob-" + i.ToString("D3"));

    private static byte[] Value(Random random, int length)
    {
        var value = new byte[length];
        random.NextBytes(value);
        return value;
    }
}
