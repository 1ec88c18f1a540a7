using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// A 0-byte <c>data.sedb</c> beside the spare <c>journal-free.*</c> files a clean close leaves used to be initialised
/// as a new, empty environment: every entry was gone without a word. Journal files of any kind beside an empty or
/// missing data file mean that the data file was lost; the open refuses unless
/// <see cref="StorageEnvironmentOptions.AcceptJournalLoss"/> says to start over.
/// </summary>
public sealed class AnEmptyDataFileBesideJournalFilesIsNotANewEnvironmentTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void An_emptied_or_deleted_data_file_beside_spare_journal_files_is_refused_and_replaced_only_when_told_to(bool deleted)
    {
        using var directory = new TempDirectory("empty-data-file");
        using (var environment = StorageEnvironment.Open(directory.Path))
        {
            using var write = environment.BeginWrite();
            var tree = write.CreateTree("t");
            for (int i = 0; i < 3000; i++) tree.Put(BitConverter.GetBytes(i), "value"u8);
            write.Commit();
        }
        Assert.NotEmpty(Directory.GetFiles(directory.Path, "journal-free.*"));
        if (deleted) File.Delete(directory.File("data.sedb"));
        else File.WriteAllBytes(directory.File("data.sedb"), []);

        var refused = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(directory.Path));
        Assert.Equal(directory.File("data.sedb"), refused.FilePath);
        Assert.Contains("journal-free.", refused.Message);
        Assert.Contains(nameof(StorageEnvironmentOptions.AcceptJournalLoss), refused.Message);
        Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(directory.Path));

        using (var started = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = directory.Path, AcceptJournalLoss = true }))
        {
            using var read = started.BeginRead();
            Assert.False(read.TryOpenTree("t", out _));
        }
        using var reopened = StorageEnvironment.Open(directory.Path);
        Assert.True(reopened.Check().IsHealthy);
    }

    [Fact]
    public void A_new_environment_is_still_created_in_an_empty_directory_and_reopened_after_a_clean_close()
    {
        using var directory = new TempDirectory("new-environment");
        using (var created = StorageEnvironment.Open(directory.Path))
        {
            using var write = created.BeginWrite();
            write.CreateTree("t").Put("k"u8, "v"u8);
            write.Commit();
        }
        using var reopened = StorageEnvironment.Open(directory.Path);
        using var read = reopened.BeginRead();
        Assert.True(read.OpenTree("t").TryGet("k"u8, out _));
    }
}
