using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Faults;

/// <summary>
/// Read errors: a failed read while opening (header, journal replay) fails the open without damaging anything,
/// and a page that reads back as garbage through the mapping is reported as corruption, never returned as data.
/// </summary>
public sealed class ReadFaultTests
{
    [Fact]
    public void A_read_error_anywhere_in_recovery_fails_the_open_and_the_next_open_recovers_everything()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 120);
        environment.SimulateCrash();
        fileSystem.Memory.SimulateProcessCrash();
        // Fail reads of the recovery in turn (headers, journal blocks and records): every one of the first 40,
        // then ever more sparsely. A failed open changes nothing that the next one reads, so the reads line up;
        // the first position past the last read lets the open through.
        int nth = 0;
        while (true)
        {
            nth += nth < 40 ? 1 : nth / 8;
            fileSystem.Arm(new Fault(FileOperation.Read, nth, FaultKind.IOError));
            try
            {
                StorageEnvironment.Open(options).Dispose();
            }
            catch (Exception failure)
            {
                Assert.True(fileSystem.HasFired && failure is IOException or StorageException && failure is not CorruptionException,
                    $"read {nth} failing made the open throw {failure}");
                fileSystem.Clear();
                continue;
            }
            Assert.False(fileSystem.HasFired, $"read {nth} failed, but the open went on as if it had not");
            break;
        }
        fileSystem.Clear();
        Assert.True(nth > 40, $"recovery read fewer than {nth} times");

        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, 120);
        AssertHealthy(reopened);
    }

    [Fact]
    public void An_unreadable_mapped_page_is_reported_as_corruption_of_the_data_file_and_never_returned_as_data()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem);
        using (var environment = StorageEnvironment.Open(options)) Commit(environment, 1, 300);
        long pages;
        using (var environment = StorageEnvironment.Open(options)) pages = environment.GetStatistics().PageCount;

        // Try pages from the end until one that a read needs is hit (the last pages are the newest tree pages).
        int damagedReads = 0;
        for (long page = pages - 1; page > 2 && damagedReads == 0; page--)
        {
            fileSystem.PoisonMappedPage(Fault.DataFile, page * 4096, 4096);
            try
            {
                using var environment = StorageEnvironment.Open(options);
                using (var reader = environment.BeginRead())
                {
                    var log = reader.OpenTree(LogTree);
                    for (long key = 1; key <= 300; key++)
                    {
                        try
                        {
                            if (log.TryGet(key, out var value))
                                Assert.True(value.SequenceEqual(Value(key)), $"key {key} read back wrong with page {page} damaged");
                        }
                        catch (CorruptionException e)
                        {
                            damagedReads++;
                            AssertNamesThePage(e, pages);
                        }
                    }
                }
                if (damagedReads > 0) Assert.False(environment.Check().IsHealthy, "Check did not notice the damaged page");
            }
            catch (CorruptionException e)
            {
                // The tree of names or a bitmap page: the open or the tree lookup reports it.
                damagedReads++;
                AssertNamesThePage(e, pages);
            }
        }
        Assert.True(damagedReads > 0, "no damaged page was ever read");

        // The device reads fine again: nothing was written over the damage.
        fileSystem.PoisonMappedPage(_ => false, 0, 0);
        using var healed = StorageEnvironment.Open(options);
        AssertExactly(healed, 300);
        AssertHealthy(healed);
    }

    private static void AssertNamesThePage(CorruptionException e, long pages)
    {
        Assert.EndsWith("data.sedb", e.FilePath);
        Assert.InRange(e.Offset, 0, pages * 4096);
    }
}
