using StorageEngine.Journal;
using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// Journal records carry small page changes as diffs against committed base pages: recovery rebuilds the
/// pages from the bases in the data file, reports a base that does not match, and refuses older formats.
/// </summary>
public sealed class JournalDiffRecoveryTests
{
    [Theory]
    [InlineData(DurabilityMode.Safe)]
    [InlineData(DurabilityMode.Lazy)]
    public void Small_commits_are_journaled_as_diffs_and_recover_exactly_after_power_loss(DurabilityMode durability)
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem, durability);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 40);
        environment.Checkpoint();
        long before = environment.GetStatistics().JournalBytesWritten;
        Commit(environment, 41, 80);
        long perCommit = (environment.GetStatistics().JournalBytesWritten - before) / 40;
        // Full images would take a 4 KB header block plus at least three 4 KB pages (leaf, tree of names, bitmap).
        Assert.True(perCommit < 4 * JournalRecordHeader.BlockSize, $"{perCommit} journal bytes per small commit");
        // A checkpoint between the commits: in Lazy mode it syncs the journal before writing the data file.
        environment.Checkpoint();
        Commit(environment, 81, 120);

        environment.SimulateCrash();
        fileSystem.SimulatePowerLoss(new Random(5), tearWrites: true);
        using var reopened = StorageEnvironment.Open(options);
        // Safe mode keeps every commit; Lazy mode a prefix that reaches at least the checkpoint.
        long last = reopened.LastCommittedTransactionId;
        Assert.InRange(last, durability == DurabilityMode.Safe ? 120 : 80, 120);
        AssertExactly(reopened, last);
        Assert.True(reopened.Check().IsHealthy);
    }

    [Theory]
    [InlineData(DurabilityMode.Safe, JournalRecordHeader.BlockSize)]
    [InlineData(DurabilityMode.Lazy, JournalRecordHeader.PackedAlignment)]
    public void A_one_put_commit_journals_its_pages_as_diffs_in_one_record_of_a_few_hundred_bytes_padded_to_the_journals_alignment(DurabilityMode durability, int alignment)
    {
        var fileSystem = new MemoryFileSystem();
        using var environment = StorageEnvironment.Open(Options(fileSystem, durability));
        using (var transaction = environment.BeginWrite())
        {
            var tree = transaction.CreateTree("t");
            for (long key = 0; key < 1_000; key++) tree.Put(key, BitConverter.GetBytes(key));
            transaction.Commit();
        }
        environment.Checkpoint();
        long before = environment.GetStatistics().JournalBytesWritten;
        var lengths = new List<long>();
        for (long key = 1_000; key < 1_020; key++)
        {
            long start = environment.GetStatistics().JournalBytesWritten;
            using var transaction = environment.BeginWrite();
            transaction.OpenTree("t").Put(key, BitConverter.GetBytes(key));
            transaction.Commit();
            lengths.Add(environment.GetStatistics().JournalBytesWritten - start);
        }
        // The copied leaf, the tree's root in the tree of names and the bitmap page all travel as diffs: an
        // unbuffered journal takes one block per commit, a buffered one packs each record to a cache line (a
        // full bitmap image would add a whole page to either).
        Assert.All(lengths, length => Assert.Equal(0, length % alignment));
        if (alignment == JournalRecordHeader.BlockSize) Assert.All(lengths, length => Assert.Equal(JournalRecordHeader.BlockSize, length));
        else Assert.All(lengths, length => Assert.InRange(length, JournalRecordHeader.Size, 1024));
    }

    [Fact]
    public void A_base_page_damaged_in_the_data_file_is_reported_as_corruption_of_the_data_file()
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 20);
        environment.Checkpoint();
        Commit(environment, 21, 30);
        environment.SimulateCrash();
        fileSystem.SimulateProcessCrash();

        // Every page the checkpoint holds is a possible base: damage all tree pages past the bitmaps.
        var data = JournalFiles.Read(fileSystem, "/db/data.sedb");
        for (int page = 16; page * 4096 < data.Length; page++) data[page * 4096 + 100] ^= 0x40;
        JournalFiles.Write(fileSystem, "/db/data.sedb", data);

        var error = Assert.ThrowsAny<CorruptionException>(() => StorageEnvironment.Open(options).Dispose());
        Assert.EndsWith("data.sedb", error.FilePath);
    }

    [Fact]
    public void Journal_records_of_format_one_not_yet_checkpointed_are_refused_with_a_clear_message()
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 5);
        environment.SimulateCrash();
        fileSystem.SimulateProcessCrash();

        string journal = JournalFiles.Current(fileSystem, "/db");
        var bytes = JournalFiles.Read(fileSystem, journal);
        var first = JournalFiles.Records(bytes)[0];
        BitConverter.GetBytes(JournalRecordHeader.FormatOneMagic).CopyTo(bytes, first.Offset);
        JournalFiles.Write(fileSystem, journal, bytes);

        var error = Assert.Throws<StorageException>(() => StorageEnvironment.Open(options).Dispose());
        Assert.Contains("format 1", error.Message);
    }
}
