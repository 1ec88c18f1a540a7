using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// A Safe commit whose large values lie on pages past the file's end writes them straight into the data file,
/// synced before its journal record, which names them only (<c>JournalPageRun.InPlace</c>): the values are
/// written once instead of twice. Every promise of the journal still holds: a returned commit survives power
/// loss, and a commit cut short anywhere is wholly present or wholly absent.
/// </summary>
public sealed class ValuesInPlaceTests
{
    private const int ValueSize = 64 << 10;
    private const int Values = 8;

    [Fact]
    public void Large_new_values_of_a_safe_commit_are_written_once_and_survive_a_crash()
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 5);
        long journalBefore = environment.GetStatistics().JournalBytesWritten;
        PutValues(environment, seed: 1);
        long journaled = environment.GetStatistics().JournalBytesWritten - journalBefore;
        Assert.True(journaled < ValueSize, $"the commit journaled {journaled} bytes for {Values * ValueSize} bytes of values");
        AssertValues(environment, seed: 1);
        environment.SimulateCrash();
        fileSystem.SimulatePowerLoss(random: null, tearWrites: false);

        using var reopened = StorageEnvironment.Open(options);
        AssertValues(reopened, seed: 1);
        AssertHealthy(reopened);
    }

    [Fact]
    public void A_lazy_commit_journals_its_large_values()
    {
        var fileSystem = new MemoryFileSystem();
        using var environment = StorageEnvironment.Open(Options(fileSystem, DurabilityMode.Lazy));
        long journalBefore = environment.GetStatistics().JournalBytesWritten;
        PutValues(environment, seed: 2);
        Assert.True(environment.GetStatistics().JournalBytesWritten - journalBefore >= Values * ValueSize);
        AssertValues(environment, seed: 2);
    }

    [Fact]
    public void Values_on_pages_freed_earlier_go_through_the_journal()
    {
        // A freed page may be the base of a journaled diff or hold a version an earlier record replays over it:
        // only pages past the file's end at the transaction's start are written in place.
        var fileSystem = new MemoryFileSystem();
        using var environment = StorageEnvironment.Open(Options(fileSystem));
        PutValues(environment, seed: 3);
        using (var transaction = environment.BeginWrite())
        {
            transaction.DeleteTree("values");
            transaction.Commit();
        }
        environment.Checkpoint();
        long journalBefore = environment.GetStatistics().JournalBytesWritten;
        PutValues(environment, seed: 4);
        Assert.True(environment.GetStatistics().JournalBytesWritten - journalBefore >= Values * ValueSize);
        AssertValues(environment, seed: 4);
    }

    [Theory]
    [MemberData(nameof(PowerLossTests.Losses), MemberType = typeof(PowerLossTests))]
    public void Every_safe_commit_survives_power_loss_when_new_values_are_written_in_place(PowerLoss loss, int seed) =>
        // Every value of the numbered transactions on new pages goes in place; deletes free some, checkpoints let
        // their pages be reused (through the journal).
        PowerLossTests.SafeCommitsWithCheckpointsAtRandomPoints(loss, seed, valuesInPlaceFrom: 1);

    [Theory]
    [InlineData(PowerLoss.UnsyncedWritesDropped)]
    [InlineData(PowerLoss.UnsyncedWritesSurviveAtRandom)]
    [InlineData(PowerLoss.UnsyncedWritesSurviveAtRandomAndTear)]
    public void A_commit_with_values_in_place_cut_short_at_any_write_is_wholly_present_or_wholly_absent(PowerLoss loss)
    {
        // The commit grows the data file, writes the values, syncs the data file, then writes its journal record;
        // the process dies before each of those in turn, then the power goes.
        var random = new Random((int)loss);
        bool sawAbsent = false, sawPresent = false;
        for (int crashAfter = 0; crashAfter < 8; crashAfter++)
        {
            var memory = new MemoryFileSystem();
            var fileSystem = new CrashingFileSystem(memory);
            var options = Options(fileSystem);
            var environment = StorageEnvironment.Open(options);
            environment.WaitForRecovery();
            Commit(environment, 1, 20);
            fileSystem.CrashAfter(crashAfter, countThisThreadOnly: true);
            bool returned = false;
            try
            {
                PutValues(environment, seed: crashAfter);
                returned = true;
            }
            catch (Exception e) when (e is IOException or StorageException)
            {
            }
            environment.SimulateCrash();
            fileSystem.Disarm();
            LosePower(memory, loss, random);

            using var reopened = StorageEnvironment.Open(options);
            long recovered = reopened.LastCommittedTransactionId;
            if (returned) Assert.Equal(21, recovered);
            else Assert.InRange(recovered, 20, 21);
            if (recovered == 21)
            {
                AssertValues(reopened, seed: crashAfter);
                sawPresent = true;
            }
            else
            {
                using var read = reopened.BeginRead();
                Assert.False(read.TryOpenTree("values", out _));
                sawAbsent = true;
            }
            AssertHealthy(reopened);
        }
        Assert.True(sawAbsent && sawPresent, "the sweep should both cut the commit short and let it through");
    }

    private static void PutValues(StorageEnvironment environment, int seed)
    {
        using var transaction = environment.BeginWrite();
        var tree = transaction.CreateTree("values", TreeOptions.Int64Keys);
        for (int i = 0; i < Values; i++) tree.Put(i, Value(seed, i));
        transaction.Commit();
    }

    private static void AssertValues(StorageEnvironment environment, int seed)
    {
        using var transaction = environment.BeginRead();
        Assert.True(transaction.TryOpenTree("values", out var tree));
        for (int i = 0; i < Values; i++)
        {
            Assert.True(tree!.TryGet(i, out var value), $"value {i} is missing");
            Assert.True(value.SequenceEqual(Value(seed, i)), $"value {i} differs");
        }
    }

    private static byte[] Value(int seed, int index)
    {
        var value = new byte[ValueSize];
        new Random(seed * 1000 + index).NextBytes(value);
        return value;
    }
}
