using StorageEngine.Platform;
using StorageEngine.Tests.Faults;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// A Lazy environment on a full disk could not be reopened: recovery needed space to write the replayed pages,
/// and every open failed with ENOSPC while the engine's own spare journal files (<c>journal-free.*</c>) held
/// megabytes. An open that finds the disk full now deletes the spares, which hold nothing anything needs, and
/// opens again.
/// </summary>
public sealed class AFullDiskOpenGivesBackTheSpareJournalFilesTests
{
    [Theory]
    [InlineData(DurabilityMode.Lazy)]
    [InlineData(DurabilityMode.Safe)]
    public void An_open_that_finds_the_disk_full_deletes_the_spare_journal_files_and_recovers_every_commit(DurabilityMode durability)
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem, durability);
        var crashed = StorageEnvironment.Open(options);
        // Enough commits to fill journal files that the checkpoint then retires to spares.
        long last = 0;
        while (fileSystem.ListFiles("/db").Count(name => name.StartsWith("journal.", StringComparison.Ordinal)) < 3 && last < 20_000)
        {
            Commit(crashed, last + 1, last + 100);
            last += 100;
        }
        crashed.Checkpoint();
        Commit(crashed, last + 1, last + 100);
        last += 100;
        crashed.SimulateCrash();
        var spares = fileSystem.ListFiles("/db").Where(name => name.StartsWith("journal-free.", StringComparison.Ordinal)).ToList();
        Assert.NotEmpty(spares);

        // The disk is full: no write to the data file goes through until journal files give back space.
        long journalBytes = JournalBytes(fileSystem.Inner);
        fileSystem.Arm(new Fault(FileOperation.Write, 1, FaultKind.DiskFull, Sticky: true, Files: Fault.DataFile));
        fileSystem.BeforeOperation = (operation, path) =>
        {
            if (operation == FileOperation.Write && Fault.DataFile(path) && JournalBytes(fileSystem.Inner) < journalBytes) fileSystem.Clear();
        };

        using var reopened = StorageEnvironment.Open(options);
        Assert.True(fileSystem.HasFired, "the open never found the disk full");
        Assert.DoesNotContain(fileSystem.ListFiles("/db"), name => spares.Contains(name));
        AssertExactly(reopened, last);
        Commit(reopened, last + 1);
        AssertExactly(reopened, last + 1);
        AssertHealthy(reopened);
    }

    [Fact]
    public void An_open_on_a_full_disk_without_spare_journal_files_still_reports_the_full_disk()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem, DurabilityMode.Lazy);
        var crashed = StorageEnvironment.Open(options);
        Commit(crashed, 1, 100);
        crashed.SimulateCrash();
        foreach (var name in fileSystem.ListFiles("/db").Where(name => name.StartsWith("journal-free.", StringComparison.Ordinal)))
            fileSystem.Delete("/db/" + name);

        fileSystem.Arm(new Fault(FileOperation.Write, 1, FaultKind.DiskFull, Sticky: true, Files: Fault.DataFile));
        var full = Assert.ThrowsAny<IOException>(() => StorageEnvironment.Open(options));
        Assert.Equal(FaultyFileSystem.ENOSPC, full.HResult);

        fileSystem.Clear();
        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, 100);
    }

    private static long JournalBytes(IFileSystem fileSystem)
    {
        long total = 0;
        foreach (var name in fileSystem.ListFiles("/db").Where(name => name.StartsWith("journal", StringComparison.Ordinal)))
        {
            using var file = fileSystem.Open("/db/" + name, StorageFileMode.Buffered);
            total += file.Length;
        }
        return total;
    }
}
