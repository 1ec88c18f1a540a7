using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// Recovery reads the journal up to its last intact record. A torn or damaged last record is a commit that never
/// returned: it is dropped whole and everything before it is kept. Damage to an earlier record, or a record of
/// another environment, is corruption: opening fails and names the journal file, and nothing is silently lost.
/// </summary>
public sealed class JournalTailTests
{
    private const int Transactions = 24;

    /// <summary>
    /// Commits 1..<see cref="Transactions"/> with no checkpoint after creation, then crashes and loses power so
    /// that only the journal holds them.
    /// </summary>
    private static (MemoryFileSystem FileSystem, StorageEnvironmentOptions Options) CommittedOnlyToTheJournal(int transactions = Transactions)
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, transactions);
        environment.SimulateCrash();
        fileSystem.SimulatePowerLoss();
        return (fileSystem, options);
    }

    [Fact]
    public void The_commits_of_the_test_live_only_in_the_journal_files_in_order_and_the_last_file_ends_with_the_last()
    {
        var (fileSystem, _) = CommittedOnlyToTheJournal();
        var files = JournalFiles.InUse(fileSystem.ListFiles("/db"), "/db");
        var records = files.SelectMany(file => JournalFiles.Records(JournalFiles.Read(fileSystem, file))).ToList();
        Assert.Equal(Enumerable.Range(1, Transactions).Select(i => (long)i), records.Select(r => r.TransactionId));
        Assert.All(records, r => Assert.Equal(0, r.Offset % 4096));
        // The tests below damage the last file's records: it holds several, the last transaction's last.
        var last = JournalFiles.Records(JournalFiles.Read(fileSystem, files[^1]));
        Assert.True(last.Count >= 2);
        Assert.Equal(Transactions, last[^1].TransactionId);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void Truncating_the_last_record_anywhere_drops_exactly_that_transaction(int seed)
    {
        var random = new Random(seed);
        for (int attempt = 0; attempt < 6; attempt++)
        {
            var (fileSystem, options) = CommittedOnlyToTheJournal();
            string journal = JournalFiles.Current(fileSystem, "/db");
            var last = JournalFiles.Records(JournalFiles.Read(fileSystem, journal))[^1];
            Assert.Equal(Transactions, last.TransactionId);
            long cut = attempt switch
            {
                0 => last.Offset + 1,
                1 => last.Offset + Math.Min(4096, last.TotalLength - 1), // small records are a single block
                2 => last.Offset + last.TotalLength - 1,
                _ => last.Offset + 1 + random.NextInt64(last.TotalLength - 1),
            };
            JournalFiles.Truncate(fileSystem, journal, cut);

            using (var environment = StorageEnvironment.Open(options))
            {
                AssertExactly(environment, Transactions - 1);
                AssertHealthy(environment);
                // The journal goes on after the torn record: the transaction can be committed again and survives.
                Commit(environment, Transactions);
                environment.SimulateCrash();
            }
            fileSystem.SimulatePowerLoss();
            using var reopened = StorageEnvironment.Open(options);
            AssertExactly(reopened, Transactions);
        }
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void Flipped_bits_in_the_last_record_drop_exactly_that_transaction(int seed)
    {
        var random = new Random(seed);
        for (int attempt = 0; attempt < 6; attempt++)
        {
            var (fileSystem, options) = CommittedOnlyToTheJournal();
            string journal = JournalFiles.Current(fileSystem, "/db");
            var bytes = JournalFiles.Read(fileSystem, journal);
            var last = JournalFiles.Records(bytes)[^1];
            JournalFiles.FlipCoveredBits(bytes, last, random.Next(1, 4), random);
            JournalFiles.Write(fileSystem, journal, bytes);

            using var environment = StorageEnvironment.Open(options);
            AssertExactly(environment, Transactions - 1);
            AssertHealthy(environment);
        }
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void Flipped_bits_in_an_earlier_record_are_corruption_naming_the_journal_file_and_the_record(int seed)
    {
        var random = new Random(seed);
        for (int attempt = 0; attempt < 4; attempt++)
        {
            var (fileSystem, options) = CommittedOnlyToTheJournal();
            string journal = JournalFiles.Current(fileSystem, "/db");
            var bytes = JournalFiles.Read(fileSystem, journal);
            var records = JournalFiles.Records(bytes);
            var damaged = records[attempt == 0 ? 0 : attempt == 1 ? records.Count - 2 : random.Next(records.Count - 1)];
            JournalFiles.FlipCoveredBits(bytes, damaged, random.Next(1, 4), random);
            JournalFiles.Write(fileSystem, journal, bytes);

            var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(options));
            Assert.Equal(Path.GetFileName(journal), Path.GetFileName(error.FilePath));
            Assert.Equal(damaged.Offset, error.Offset);
            Assert.Contains($"transaction {damaged.TransactionId}", error.Message, StringComparison.Ordinal);
            // A failed open leaves nothing locked or half-recovered behind: it fails the same way again.
            var again = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(options));
            Assert.Equal(error.Offset, again.Offset);
        }
    }

    [Fact]
    public void A_journal_file_of_another_environment_in_place_of_ours_is_corruption()
    {
        var (fileSystem, options) = CommittedOnlyToTheJournal();
        var (other, _) = CommittedOnlyToTheJournal(Transactions + 5);
        string journal = JournalFiles.Current(fileSystem, "/db");
        string foreign = JournalFiles.Current(other, "/db");
        Assert.Equal(Path.GetFileName(journal), Path.GetFileName(foreign));
        JournalFiles.Write(fileSystem, journal, JournalFiles.Read(other, foreign));

        // Its records have the right transaction ids and checksums; only the environment id tells them apart.
        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(options));
        Assert.Equal(Path.GetFileName(journal), Path.GetFileName(error.FilePath));
        Assert.Equal(0, error.Offset);
        Assert.Contains("another environment", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_journal_file_of_another_environment_after_ours_is_corruption_and_not_replayed()
    {
        var (fileSystem, options) = CommittedOnlyToTheJournal();
        var (other, _) = CommittedOnlyToTheJournal(Transactions + 5);
        string journal = JournalFiles.Current(fileSystem, "/db");
        Assert.True(Journal.JournalFileNames.TryParse(Path.GetFileName(journal), out long number));
        string next = Path.Combine("/db", Journal.JournalFileNames.ForNumber(number + 1));
        JournalFiles.Write(fileSystem, next, JournalFiles.Read(other, JournalFiles.Current(other, "/db")));

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(options));
        Assert.Equal(Path.GetFileName(next), Path.GetFileName(error.FilePath));
        Assert.Contains("another environment", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_record_of_another_environment_after_our_last_one_is_corruption_and_not_replayed()
    {
        var (fileSystem, options) = CommittedOnlyToTheJournal();
        var (other, _) = CommittedOnlyToTheJournal(Transactions + 5);
        string journal = JournalFiles.Current(fileSystem, "/db");
        var bytes = JournalFiles.Read(fileSystem, journal);
        var last = JournalFiles.Records(bytes)[^1];
        var otherBytes = JournalFiles.Read(other, JournalFiles.Current(other, "/db"));
        // The other environment's record of the very transaction ours would commit next.
        var successor = JournalFiles.Records(otherBytes).Single(r => r.TransactionId == Transactions + 1);
        long end = last.Offset + last.TotalLength;
        Array.Copy(otherBytes, successor.Offset, bytes, end, successor.TotalLength);
        JournalFiles.Write(fileSystem, journal, bytes);

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(options));
        Assert.Equal(Path.GetFileName(journal), Path.GetFileName(error.FilePath));
        Assert.Equal(end, error.Offset);
        Assert.Contains("another environment", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Truncating_the_last_record_on_disk_drops_exactly_that_transaction()
    {
        string directory = Path.Combine(Path.GetTempPath(), "se-journal-tail-" + Guid.NewGuid().ToString("N"));
        try
        {
            var options = new StorageEnvironmentOptions
            {
                Path = directory,
                JournalFileSize = 1 << 20,
                CheckpointThreshold = long.MaxValue,
                CheckpointInterval = TimeSpan.FromHours(1),
            };
            var environment = StorageEnvironment.Open(options);
            Commit(environment, 1, Transactions);
            environment.SimulateCrash();

            string journal = JournalFiles.InUse(Directory.GetFiles(directory).Select(p => Path.GetFileName(p)!).ToList(), directory)[^1];
            var last = JournalFiles.Records(File.ReadAllBytes(journal))[^1];
            Assert.Equal(Transactions, last.TransactionId);
            using (var stream = new FileStream(journal, FileMode.Open, FileAccess.Write))
            {
                stream.SetLength(last.Offset + last.TotalLength / 2);
            }

            using var reopened = StorageEnvironment.Open(options);
            AssertExactly(reopened, Transactions - 1);
            AssertHealthy(reopened);
        }
        finally
        {
            try
            {
                Directory.Delete(directory, recursive: true);
            }
            catch (IOException)
            {
                // Best effort: a leftover temp directory must not fail the test.
            }
        }
    }
}
