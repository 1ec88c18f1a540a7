using System.Buffers;
using System.Buffers.Binary;
using System.IO.Pipelines;
using StorageEngine.Platform;

namespace StorageEngine.Tests.Replication;

/// <summary>
/// Backups and shipping streams as byte arrays, so that tests can cut, damage and replay them; and the
/// environments of a primary and its replica on one memory file system.
/// </summary>
internal static class ReplicationStreams
{
    public const string PrimaryPath = "/db";
    public const string ReplicaPath = "/replica";

    /// <summary>Offset of the first record in a shipping stream (the stream header's size).</summary>
    public const int StreamHeaderSize = 64;

    private const int RecordHeaderSize = 192;

    public static StorageEnvironmentOptions ReplicaOptions(MemoryFileSystem fileSystem)
    {
        var options = Durability.NumberedTransactions.Options(fileSystem);
        options.Path = ReplicaPath;
        return options;
    }

    public static async Task<(byte[] Bytes, BackupSummary Summary)> BackupAsync(StorageEnvironment environment, IProgress<BackupProgress>? progress = null)
    {
        using var stream = new MemoryStream();
        var summary = await environment.BackupAsync(stream, progress);
        return (stream.ToArray(), summary);
    }

    public static Task<BackupSummary> RestoreAsync(byte[] backup, StorageEnvironmentOptions target) =>
        StorageEnvironment.RestoreAsync(PipeReader.Create(new ReadOnlySequence<byte>(backup)), target);

    /// <summary>A replica of <paramref name="primary"/> as of now, restored from a full backup.</summary>
    public static async Task<StorageEnvironment> CreateReplicaAsync(StorageEnvironment primary, StorageEnvironmentOptions replicaOptions)
    {
        var (backup, _) = await BackupAsync(primary);
        await RestoreAsync(backup, replicaOptions);
        return StorageEnvironment.OpenReplica(replicaOptions);
    }

    /// <summary>Everything committed after <paramref name="afterTransactionId"/>, as one finished shipping stream.</summary>
    public static async Task<byte[]> ShipAsync(StorageEnvironment primary, long afterTransactionId)
    {
        using var stream = new MemoryStream();
        var writer = PipeWriter.Create(stream);
        await primary.ShipJournalAsync(afterTransactionId, writer, follow: false);
        await writer.CompleteAsync();
        return stream.ToArray();
    }

    public static Task<long> ApplyAsync(StorageEnvironment replica, ReadOnlyMemory<byte> stream) =>
        replica.ApplyReplicationStreamAsync(PipeReader.Create(new ReadOnlySequence<byte>(stream)));

    /// <summary>Where each record of a shipping stream starts, and the stream's length last.</summary>
    public static List<int> RecordOffsets(byte[] stream)
    {
        var offsets = new List<int>();
        int offset = StreamHeaderSize;
        while (offset < stream.Length)
        {
            offsets.Add(offset);
            int runs = BinaryPrimitives.ReadInt32LittleEndian(stream.AsSpan(offset + 4));
            long payload = BinaryPrimitives.ReadInt64LittleEndian(stream.AsSpan(offset + 16));
            offset += RecordHeaderSize + runs * 24 + (int)payload;
        }
        Assert.Equal(stream.Length, offset);
        offsets.Add(offset);
        return offsets;
    }

    /// <summary>Pages a shipping stream carries as diffs rather than full images.</summary>
    public static int CountDiffs(byte[] stream)
    {
        var offsets = RecordOffsets(stream);
        int diffs = 0;
        for (int r = 0; r + 1 < offsets.Count; r++)
        {
            int runs = BinaryPrimitives.ReadInt32LittleEndian(stream.AsSpan(offsets[r] + 4));
            for (int i = 0; i < runs; i++)
                if (BinaryPrimitives.ReadInt64LittleEndian(stream.AsSpan(offsets[r] + RecordHeaderSize + i * 24 + 16)) != long.MinValue) diffs++;
        }
        return diffs;
    }

    /// <summary>Every tree's entries, for comparing two environments or two moments of one reader.</summary>
    public static List<(string Tree, byte[] Key, byte[] Value)> Dump(Transaction transaction)
    {
        var entries = new List<(string, byte[], byte[])>();
        foreach (var name in transaction.GetTreeNames())
        {
            using var cursor = transaction.OpenTree(name).CreateCursor();
            for (bool more = cursor.First(); more; more = cursor.Next()) entries.Add((name, cursor.Key.ToArray(), cursor.Value.ToArray()));
        }
        return entries;
    }

    /// <summary>Asserts that both environments hold the same trees and entries.</summary>
    public static void AssertSameContents(StorageEnvironment expected, StorageEnvironment actual)
    {
        using var left = expected.BeginRead();
        using var right = actual.BeginRead();
        AssertSameDump(Dump(left), Dump(right));
    }

    public static void AssertSameDump(List<(string Tree, byte[] Key, byte[] Value)> expected, List<(string Tree, byte[] Key, byte[] Value)> actual)
    {
        Assert.Equal(expected.Count, actual.Count);
        for (int i = 0; i < expected.Count; i++)
        {
            if (expected[i].Tree != actual[i].Tree || !expected[i].Key.AsSpan().SequenceEqual(actual[i].Key) || !expected[i].Value.AsSpan().SequenceEqual(actual[i].Value))
                Assert.Fail($"Entry {i} differs: expected {expected[i].Tree}/{Convert.ToHexString(expected[i].Key)} ({expected[i].Value.Length} bytes), got {actual[i].Tree}/{Convert.ToHexString(actual[i].Key)} ({actual[i].Value.Length} bytes).");
        }
    }
}
