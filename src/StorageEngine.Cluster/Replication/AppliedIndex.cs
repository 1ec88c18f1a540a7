using System.Buffers.Binary;

namespace StorageEngine.Cluster.Replication;

/// <summary>
/// The last log entry a node's environment holds the effects of: index and term, stored in
/// <see cref="WriteCommand.ClusterTreeName"/> in the same transaction as the entry's changes.
/// </summary>
internal static class AppliedIndex
{
    private static ReadOnlySpan<byte> Key => "applied"u8;

    public static (long Index, long Term) Read(Transaction transaction)
    {
        if (!transaction.TryOpenTree(WriteCommand.ClusterTreeName, out var tree) || !tree.TryGet(Key, out var value) || value.Length != 16)
            return (0, 0);
        return (BinaryPrimitives.ReadInt64LittleEndian(value), BinaryPrimitives.ReadInt64LittleEndian(value[8..]));
    }

    public static (long Index, long Term) Read(StorageEnvironment environment)
    {
        using var read = environment.BeginRead();
        return Read(read);
    }

    public static void Write(WriteTransaction transaction, long index, long term)
    {
        Span<byte> value = stackalloc byte[16];
        BinaryPrimitives.WriteInt64LittleEndian(value, index);
        BinaryPrimitives.WriteInt64LittleEndian(value[8..], term);
        transaction.CreateTree(WriteCommand.ClusterTreeName).Put(Key, value);
    }
}
