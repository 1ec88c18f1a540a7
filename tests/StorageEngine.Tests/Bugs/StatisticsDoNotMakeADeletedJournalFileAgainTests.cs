using StorageEngine.Platform;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// <c>GetStatistics</c> listed the journal files, then opened each to read its length, and an open creates a missing
/// file. A file deleted in between (a checkpoint retiring it, a failed spare cleaned up, a switch renaming a spare
/// into place) came back, empty, under its old name: the Wine leg of CI found a leaked <c>journal-free.*</c> after a
/// test polled the statistics while the checkpointer's spare attempts failed on a full disk. Statistics now open
/// only files that exist (<see cref="StorageFileMode.Existing"/>) and leave out one that went away.
/// </summary>
public sealed class StatisticsDoNotMakeADeletedJournalFileAgainTests
{
    /// <summary>Deletes one file right after each listing, as another thread would between the listing and the open.</summary>
    private sealed class DeletingAfterListing(IFileSystem inner) : IFileSystem
    {
        public string? Victim { get; set; }

        public bool IsInMemory => inner.IsInMemory;

        public IStorageFile Open(string path, StorageFileMode mode) => inner.Open(path, mode);

        public bool Exists(string path) => inner.Exists(path);

        public void Delete(string path) => inner.Delete(path);

        public void Rename(string from, string to) => inner.Rename(from, to);

        public IReadOnlyList<string> ListFiles(string directory)
        {
            var names = inner.ListFiles(directory);
            if (Victim is { } victim && inner.Exists(victim)) inner.Delete(victim);
            return names;
        }

        public void CreateDirectory(string path) => inner.CreateDirectory(path);

        public IDisposable AcquireLock(string lockFilePath) => inner.AcquireLock(lockFilePath);

        public IDisposable AcquireSharedLock(string lockFilePath) => inner.AcquireSharedLock(lockFilePath);
    }

    [Fact]
    public void A_journal_file_deleted_after_the_listing_is_left_out_and_not_made_again()
    {
        var memory = new MemoryFileSystem();
        var fileSystem = new DeletingAfterListing(memory);
        using var environment = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = "/db", FileSystem = fileSystem, Durability = DurabilityMode.Safe });
        using (var transaction = environment.BeginWrite())
        {
            transaction.CreateTree("t").Put("key"u8, "value"u8);
            transaction.Commit();
        }
        var before = environment.GetStatistics();
        const string spare = "/db/journal-free.7";
        using (var file = memory.Open(spare, StorageFileMode.Buffered)) file.SetLength(4096);

        fileSystem.Victim = spare;
        var statistics = environment.GetStatistics();

        Assert.False(memory.Exists(spare), "the statistics made the deleted journal file again");
        Assert.Equal(before.JournalFiles, statistics.JournalFiles);
        Assert.Equal(before.JournalBytes, statistics.JournalBytes);
    }

    [Fact]
    public void An_open_of_an_existing_file_only_creates_nothing_on_disk_or_in_memory()
    {
        using var directory = new StorageEngine.Tests.Unit.TempDirectory();
        string path = Path.Combine(directory.Path, "missing");
        Assert.Throws<FileNotFoundException>(() => OsFileSystem.Instance.Open(path, StorageFileMode.Buffered | StorageFileMode.Existing));
        Assert.False(File.Exists(path));

        var memory = new MemoryFileSystem();
        Assert.Throws<FileNotFoundException>(() => memory.Open("/missing", StorageFileMode.Buffered | StorageFileMode.Existing));
        Assert.False(memory.Exists("/missing"));

        File.WriteAllBytes(path, new byte[123]);
        using var existing = OsFileSystem.Instance.Open(path, StorageFileMode.Buffered | StorageFileMode.Existing);
        Assert.Equal(123, existing.Length);
    }
}
