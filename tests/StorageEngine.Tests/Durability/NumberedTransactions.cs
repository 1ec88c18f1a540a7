using StorageEngine.Platform;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// Transactions numbered 1, 2, 3, ... with a known outcome: transaction i puts keys i and i + 1,000,000 into tree
/// "log" (a value large enough for overflow pages every 13th time), deletes key i - 2 every 5th time, and sets
/// "last" in tree "meta" to i. The state after transaction n is therefore known exactly, and a transaction that
/// was only partly applied shows. On a fresh environment the numbers are the transaction ids.
/// </summary>
internal static class NumberedTransactions
{
    public const string LogTree = "log";
    public const string MetaTree = "meta";
    private const long SecondKeyOffset = 1_000_000;
    private static readonly byte[] LastKey = "last"u8.ToArray();

    /// <summary>
    /// Options for an environment on <paramref name="fileSystem"/> that checkpoints only when asked to;
    /// <paramref name="valuesInPlaceFrom"/> sets how many bytes of new large values a Safe commit writes straight
    /// into the data file (null: the engine's default; 1: every such value; <see cref="long.MaxValue"/>: none).
    /// </summary>
    public static StorageEnvironmentOptions Options(IFileSystem fileSystem, DurabilityMode durability = DurabilityMode.Safe, long journalFileSize = 1 << 20,
        long? valuesInPlaceFrom = null) => new()
    {
        Path = "/db",
        Durability = durability,
        FileSystem = fileSystem,
        JournalFileSize = journalFileSize,
        CheckpointThreshold = long.MaxValue,
        CheckpointInterval = TimeSpan.FromHours(1),
        ValuesInPlaceFrom = valuesInPlaceFrom,
    };

    /// <summary>Commits transaction <paramref name="number"/>, which must be the next transaction id.</summary>
    public static void Commit(StorageEnvironment environment, long number)
    {
        using var transaction = environment.BeginWrite();
        Apply(transaction, number);
        transaction.Commit();
    }

    /// <summary>
    /// Commits transaction <paramref name="number"/> with <see cref="WriteTransaction.CommitAsync"/>; the write lock
    /// is free when this returns, and the task completes once the commit is durable.
    /// </summary>
    public static ValueTask CommitAsync(StorageEnvironment environment, long number)
    {
        using var transaction = environment.BeginWrite();
        Apply(transaction, number);
        return transaction.CommitAsync();
    }

    private static void Apply(WriteTransaction transaction, long number)
    {
        Assert.Equal(number, transaction.TransactionId);
        var log = transaction.CreateTree(LogTree);
        log.Put(number, Value(number));
        log.Put(SecondKeyOffset + number, Value(SecondKeyOffset + number));
        if (number % 5 == 0) Assert.True(log.Delete(number - 2), $"transaction {number} found no key {number - 2} to delete");
        transaction.CreateTree(MetaTree).Put(LastKey, BitConverter.GetBytes(number));
    }

    /// <summary>Commits transactions <paramref name="first"/> to <paramref name="last"/>.</summary>
    public static void Commit(StorageEnvironment environment, long first, long last)
    {
        for (long number = first; number <= last; number++) Commit(environment, number);
    }

    /// <summary>The value transaction <paramref name="key"/>'s number gives a key.</summary>
    public static byte[] Value(long key)
    {
        long number = key % SecondKeyOffset;
        int length = number % 13 == 0 ? 2048 + (int)(key * 7919 % 18000) : (int)(key % 40);
        var value = new byte[length];
        for (int i = 0; i < length; i++) value[i] = (byte)(key * 31 + i * 7 + (i >> 8));
        return value;
    }

    /// <summary>Asserts that the environment holds exactly what transactions 1 to <paramref name="last"/> leave, nothing more or less.</summary>
    public static void AssertExactly(StorageEnvironment environment, long last)
    {
        Assert.Equal(last, environment.LastCommittedTransactionId);
        using var transaction = environment.BeginRead();
        if (last == 0)
        {
            Assert.Empty(transaction.GetTreeNames());
            return;
        }
        Assert.Equal(last, BitConverter.ToInt64(transaction.OpenTree(MetaTree).Get(LastKey)));
        var expected = ExpectedKeys(last);
        var log = transaction.OpenTree(LogTree);
        Assert.Equal(expected.Count, log.Count);
        using var cursor = log.CreateCursor();
        bool on = cursor.First();
        foreach (long key in expected)
        {
            if (!on) Assert.Fail($"After transaction {last}: the log ends before key {key}.");
            if (cursor.Int64Key != key) Assert.Fail($"After transaction {last}: the log has key {cursor.Int64Key} where key {key} belongs.");
            if (!cursor.Value.SequenceEqual(Value(key))) Assert.Fail($"After transaction {last}: the value of key {key} is wrong ({cursor.Value.Length} bytes).");
            on = cursor.Next();
        }
        if (on) Assert.Fail($"After transaction {last}: the log holds key {cursor.Int64Key} past the last expected one.");
    }

    /// <summary>Takes the power away from a memory file system whose environment has already crashed.</summary>
    public static void LosePower(MemoryFileSystem fileSystem, PowerLoss loss, Random random) =>
        fileSystem.SimulatePowerLoss(loss == PowerLoss.UnsyncedWritesDropped ? null : random, tearWrites: loss == PowerLoss.UnsyncedWritesSurviveAtRandomAndTear);

    /// <summary>Asserts that <see cref="StorageEnvironment.Check"/> finds nothing wrong, listing what it finds.</summary>
    public static void AssertHealthy(StorageEnvironment environment)
    {
        var report = environment.Check();
        Assert.True(report.IsHealthy, $"Check found {report.Problems.Count} problems:{Environment.NewLine}{string.Join(Environment.NewLine, report.Problems)}");
    }

    /// <summary>The log keys after transaction <paramref name="last"/>, in order.</summary>
    public static List<long> ExpectedKeys(long last)
    {
        var keys = new List<long>();
        for (long i = 1; i <= last; i++)
        {
            bool deleted = i + 2 <= last && (i + 2) % 5 == 0;
            if (!deleted) keys.Add(i);
        }
        for (long i = 1; i <= last; i++) keys.Add(SecondKeyOffset + i);
        return keys;
    }
}
