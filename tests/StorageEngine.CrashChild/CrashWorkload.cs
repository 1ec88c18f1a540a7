using System.Text;

namespace StorageEngine.CrashChild;

/// <summary>
/// The transactions the child commits. Transaction <c>i</c> is a pure function of <c>i</c>, so the content of
/// the environment after it is a pure function of <c>i</c> too, and the highest <c>tx/</c> key names it.
/// </summary>
public static class CrashWorkload
{
    public const string TreeName = "crash";
    public const string TransactionKeyPrefix = "tx/";

    /// <summary>Small keys are drawn from this many names, so later transactions overwrite and delete earlier ones.</summary>
    public const int SmallKeySpace = 2000;

    /// <summary>Overflow values (10 to 100 KB) live under this many names, which bounds the environment's size.</summary>
    public const int LargeKeySpace = 12;

    public static string TransactionKey(long i) => $"{TransactionKeyPrefix}{i:D10}";

    /// <summary>Parses a <see cref="TransactionKey"/>; throws on anything else.</summary>
    public static long ParseTransactionKey(ReadOnlySpan<byte> key)
    {
        string text = Encoding.ASCII.GetString(key);
        if (!text.StartsWith(TransactionKeyPrefix, StringComparison.Ordinal) || !long.TryParse(text.AsSpan(TransactionKeyPrefix.Length), out long i))
            throw new FormatException($"'{text}' is not a transaction key.");
        return i;
    }

    /// <summary>The changes of transaction <paramref name="i"/> (1-based), in the order they are applied.</summary>
    public static List<WorkloadOperation> Operations(long i)
    {
        var random = new DeterministicRandom((ulong)i * 0x2545F4914F6CDD1DUL);
        var operations = new List<WorkloadOperation> { new(TransactionKey(i), Value(i, 0, 16 + random.Next(48))) };

        int puts = random.Next(1, 51);
        for (int n = 1; n <= puts; n++)
            operations.Add(new($"k/{random.Next(SmallKeySpace):D5}", Value(i, n, random.Next(0, 400))));

        if (random.Next(6) == 0)
            operations.Add(new($"big/{random.Next(LargeKeySpace):D2}", Value(i, 1000, random.Next(10_000, 100_001))));

        if (random.Next(3) == 0)
        {
            int deletes = random.Next(1, 16);
            for (int n = 0; n < deletes; n++) operations.Add(new($"k/{random.Next(SmallKeySpace):D5}", null));
        }

        if (random.Next(10) == 0) operations.Add(new($"big/{random.Next(LargeKeySpace):D2}", null));

        // Now and then drop an older transaction marker; the newest one always stays, since it names the state.
        if (i > 10 && random.Next(4) == 0) operations.Add(new(TransactionKey(i - 1 - random.Next(10)), null));

        return operations;
    }

    /// <summary>Applies transaction <paramref name="i"/> to a model of the tree's content.</summary>
    public static void Apply(long i, IDictionary<string, byte[]> model)
    {
        foreach (var operation in Operations(i))
        {
            if (operation.IsDelete) model.Remove(operation.Key);
            else model[operation.Key] = operation.Value!;
        }
    }

    /// <summary>Applies transaction <paramref name="i"/> to the tree.</summary>
    public static void Apply(long i, Tree tree)
    {
        foreach (var operation in Operations(i))
        {
            byte[] key = Encoding.ASCII.GetBytes(operation.Key);
            if (operation.IsDelete) tree.Delete(key);
            else tree.Put(key, operation.Value);
        }
    }

    /// <summary>The last transaction whose changes the tree holds: its highest <c>tx/</c> key, 0 when none.</summary>
    public static long LastTransaction(Transaction transaction)
    {
        if (!transaction.TryOpenTree(TreeName, out var tree)) return 0;
        using var cursor = tree.CreateCursor(KeyRange.Prefix(Encoding.ASCII.GetBytes(TransactionKeyPrefix)));
        return cursor.Last() ? ParseTransactionKey(cursor.Key) : 0;
    }

    private static byte[] Value(long i, int salt, int length)
    {
        var value = new byte[length];
        var random = new DeterministicRandom(((ulong)i << 20) ^ (ulong)salt ^ 0xA5A5_0000_0000_0000UL);
        random.Fill(value);
        // Stamp the writer so a wrong value in a failure message says which transaction it came from.
        if (length >= 8) System.Buffers.Binary.BinaryPrimitives.WriteInt64LittleEndian(value, i);
        return value;
    }
}
