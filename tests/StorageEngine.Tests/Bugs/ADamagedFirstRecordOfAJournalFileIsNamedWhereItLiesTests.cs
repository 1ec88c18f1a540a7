using StorageEngine.Platform;
using StorageEngine.Tests.Durability;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// A damaged record followed by intact later ones is corruption, and the exception names the damaged record's file
/// and offset. When the damaged record was the first of a journal file (the writer moved to a new file because it
/// did not fit in the last one), the exception named the end of the previous file's records instead, where nothing
/// is damaged.
/// </summary>
public sealed class ADamagedFirstRecordOfAJournalFileIsNamedWhereItLiesTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void Flipped_bits_past_the_header_of_a_later_files_first_record_are_reported_in_that_file_at_offset_zero(int seed)
    {
        var random = new Random(seed);
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        // Transactions until the journal has moved on to another file and written two records there.
        long last = 0;
        while (JournalFiles.InUse(fileSystem.ListFiles("/db"), "/db").Count < 2 || JournalFiles.Records(JournalFiles.Read(fileSystem, JournalFiles.Current(fileSystem, "/db"))).Count < 2)
        {
            Commit(environment, ++last);
        }
        environment.SimulateCrash();
        fileSystem.SimulatePowerLoss();

        string journal = JournalFiles.Current(fileSystem, "/db");
        var bytes = JournalFiles.Read(fileSystem, journal);
        var first = JournalFiles.Records(bytes)[0];
        Assert.Equal(0, first.Offset);
        // In the state, run table or diffs, past the fields that say whose record it is (magic, environment,
        // transaction, session): the block still claims the transaction, and its checksum fails.
        long at = 64 + random.NextInt64(first.HeaderLength - 64);
        bytes[at] ^= (byte)(1 << random.Next(8));
        JournalFiles.Write(fileSystem, journal, bytes);

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(options));
        Assert.Equal(Path.GetFileName(journal), Path.GetFileName(error.FilePath));
        Assert.Equal(0, error.Offset);
        Assert.Contains($"transaction {first.TransactionId} is damaged", error.Message, StringComparison.Ordinal);
    }
}
