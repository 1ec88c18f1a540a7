using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// <c>x/../db</c> with <c>x</c> missing used to create <c>db/data.sedb</c> (.NET resolves <c>..</c> by the path's
/// text) and then fail on the journal (the kernel resolves it through <c>x</c>, which is not there), leaving a
/// half-made environment. The directory is now resolved once, up front, and every file goes through that path.
/// </summary>
public sealed class AStorePathThroughAMissingDirectoryOpensWhollyTests
{
    [Theory]
    [InlineData(DurabilityMode.Safe)]
    [InlineData(DurabilityMode.Lazy)]
    public void A_path_whose_dot_dot_passes_through_a_missing_directory_opens_commits_and_reopens_in_one_place(DurabilityMode durability)
    {
        using var root = new TempDirectory("dot-dot");
        string path = Path.Combine(root.Path, "missing", "..", "db");
        var options = new StorageEnvironmentOptions { Path = path, Durability = durability };
        using (var environment = StorageEnvironment.Open(options))
        {
            Assert.Equal(Path.Combine(root.Path, "db"), environment.Directory);
            using var write = environment.BeginWrite();
            write.CreateTree("t").Put("k"u8, "v"u8);
            write.Commit();
            environment.SimulateCrash();
        }

        Assert.True(File.Exists(Path.Combine(root.Path, "db", "data.sedb")));
        Assert.NotEmpty(Directory.GetFiles(Path.Combine(root.Path, "db"), "journal.*"));
        Assert.False(Directory.Exists(Path.Combine(root.Path, "missing")));
        using var reopened = StorageEnvironment.Open(options);
        using var read = reopened.BeginRead();
        Assert.True(read.OpenTree("t").TryGet("k"u8, out _));
    }
}
