using StorageEngine.Platform;

namespace StorageEngine.Tests.Platform;

/// <summary>
/// On macOS, fsync does not flush the drive's cache, so every sync a durability promise rests on must be an
/// fcntl(F_FULLFSYNC): the journal's sync after a Safe commit's write, the data file's sync at a checkpoint, and
/// the directory syncs that make created and renamed files durable. The tests count the F_FULLFSYNC calls that
/// succeeded, apart from the fallbacks to fsync.
/// </summary>
[Collection(MacOSSyncCollection.Name)]
public sealed class MacOSFullSyncTests : IDisposable
{
    private readonly StorageEngine.Tests.Unit.TempDirectory _directory = new("macos-sync");

    public void Dispose() => _directory.Dispose();

    [MacOSFact]
    public void A_journal_file_is_buffered_and_each_of_its_syncs_is_a_full_sync()
    {
        using IStorageFile journal = OsFileSystem.Instance.Open(_directory.File("journal"), StorageFileMode.UnbufferedWriteThrough);

        // macOS has no O_DSYNC that reaches the medium, so the journal is buffered and the writer syncs it.
        Assert.False(journal.IsWriteThrough);
        journal.Write(0, new byte[4096]);
        long before = DarwinNative.FullSyncCount;
        journal.Flush();
        Assert.True(DarwinNative.FullSyncCount > before, "the journal's sync was not an F_FULLFSYNC");
    }

    [MacOSFact]
    public void Creating_renaming_and_deleting_a_file_syncs_its_directory()
    {
        IFileSystem fs = OsFileSystem.Instance;

        // A directory sync is an F_FULLFSYNC where the file system takes one on a directory, else an fsync.
        static long Syncs() => DarwinNative.FullSyncCount + DarwinNative.FallbackSyncCount;
        long before = Syncs();
        using (fs.Open(_directory.File("a.tmp"), StorageFileMode.Buffered))
        {
        }

        long afterCreate = Syncs();
        Assert.True(afterCreate > before, "creating a file did not sync its directory");
        fs.Rename(_directory.File("a.tmp"), _directory.File("a"));
        long afterRename = Syncs();
        Assert.True(afterRename > afterCreate, "renaming a file did not sync its directory");
        fs.Delete(_directory.File("a"));
        Assert.True(Syncs() > afterRename, "deleting a file did not sync its directory");
    }

    [MacOSFact]
    public void A_safe_commit_and_a_checkpoint_end_in_full_syncs_and_survive_a_reopen()
    {
        string path = _directory.File("env");
        var options = new StorageEnvironmentOptions { Path = path, Durability = DurabilityMode.Safe, CheckpointInterval = TimeSpan.FromHours(1) };
        using (var environment = StorageEnvironment.Open(options))
        {
            long beforeCommit = DarwinNative.FullSyncCount;
            using (var transaction = environment.BeginWrite())
            {
                transaction.CreateTree("t").Put("key"u8, "value"u8);
                transaction.Commit();
            }

            Assert.True(DarwinNative.FullSyncCount > beforeCommit, "the Safe commit returned without an F_FULLFSYNC");

            long beforeCheckpoint = DarwinNative.FullSyncCount;
            environment.Checkpoint();
            Assert.True(DarwinNative.FullSyncCount > beforeCheckpoint, "the checkpoint returned without an F_FULLFSYNC");
        }

        using var reopened = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = path });
        using var read = reopened.BeginRead();
        Assert.Equal("value"u8.ToArray(), read.OpenTree("t").Get("key"u8));
    }
}
