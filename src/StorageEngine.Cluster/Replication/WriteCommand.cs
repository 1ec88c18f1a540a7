using System.Buffers.Binary;
using System.Text;

namespace StorageEngine.Cluster.Replication;

/// <summary>
/// The log entry of a <see cref="ClusterBatch"/>: a version byte, the 16-byte request id, the operation count (int32,
/// little-endian), then each operation: kind (1 put, 2 delete), tree name (length byte and UTF-8), key (int32
/// length and bytes) and, for a put, the value (int32 length and bytes).
/// </summary>
internal static class WriteCommand
{
    public const byte Version = 1;
    public const int HeaderSize = 1 + 16 + 4;
    public const byte Put = 1;
    public const byte Delete = 2;

    /// <summary>The tree where each node records the last log entry it applied; batches may not touch it.</summary>
    public const string ClusterTreeName = "$cluster";

    public static void WriteHeader(Span<byte> destination, Guid requestId, int count)
    {
        destination[0] = Version;
        requestId.TryWriteBytes(destination.Slice(1, 16));
        BinaryPrimitives.WriteInt32LittleEndian(destination.Slice(17, 4), count);
    }

    /// <summary>Reads the request id; false when the payload is not a write command this version knows.</summary>
    public static bool TryReadRequestId(ReadOnlySpan<byte> payload, out Guid requestId)
    {
        requestId = default;
        if (payload.Length < HeaderSize || payload[0] != Version) return false;
        requestId = new Guid(payload.Slice(1, 16));
        return true;
    }

    /// <summary>Checks the payload's structure and returns its largest key and value, without applying it.</summary>
    /// <exception cref="FormatException">The payload is malformed.</exception>
    public static (int Count, int LargestKey, int LargestValue) Validate(ReadOnlySpan<byte> payload) => Walk(payload, null);

    /// <summary>
    /// Applies the operations to <paramref name="transaction"/>.
    /// </summary>
    /// <exception cref="FormatException">The payload is malformed.</exception>
    /// <exception cref="ArgumentException">The engine refused an operation (a key or value too large for it).</exception>
    public static void Apply(ReadOnlySpan<byte> payload, WriteTransaction transaction) => Walk(payload, transaction);

    private static (int Count, int LargestKey, int LargestValue) Walk(ReadOnlySpan<byte> payload, WriteTransaction? transaction)
    {
        int largestKey = 0, largestValue = 0;
        if (payload.Length < HeaderSize || payload[0] != Version)
            throw new FormatException($"The log entry is not a write command of version {Version}.");
        int count = BinaryPrimitives.ReadInt32LittleEndian(payload.Slice(17, 4));
        if (count <= 0) throw new FormatException($"A write command holds at least one operation, not {count}.");
        var rest = payload[HeaderSize..];
        string? lastName = null;
        Tree? lastTree = null;
        for (int i = 0; i < count; i++)
        {
            if (rest.Length < 2) throw Malformed(i);
            byte kind = rest[0];
            int nameLength = rest[1];
            if ((kind != Put && kind != Delete) || nameLength == 0 || rest.Length < 2 + nameLength + 4) throw Malformed(i);
            var nameBytes = rest.Slice(2, nameLength);
            rest = rest[(2 + nameLength)..];
            int keyLength = BinaryPrimitives.ReadInt32LittleEndian(rest);
            if (keyLength <= 0 || rest.Length < 4 + keyLength) throw Malformed(i);
            var key = rest.Slice(4, keyLength);
            rest = rest[(4 + keyLength)..];
            largestKey = Math.Max(largestKey, keyLength);
            Tree? tree = null;
            if (transaction is null)
            {
                if (SameName(ClusterTreeName, nameBytes)) throw new FormatException($"Operation {i} names the reserved tree '{ClusterTreeName}'.");
            }
            else if (lastTree is not null && lastName is not null && SameName(lastName, nameBytes))
            {
                tree = lastTree;
            }
            else
            {
                lastName = Encoding.UTF8.GetString(nameBytes);
                if (lastName == ClusterTreeName) throw new FormatException($"Operation {i} names the reserved tree '{ClusterTreeName}'.");
                tree = lastTree = transaction.CreateTree(lastName);
            }
            if (kind == Put)
            {
                if (rest.Length < 4) throw Malformed(i);
                int valueLength = BinaryPrimitives.ReadInt32LittleEndian(rest);
                if (valueLength < 0 || rest.Length < 4 + valueLength) throw Malformed(i);
                largestValue = Math.Max(largestValue, valueLength);
                tree?.Put(key, rest.Slice(4, valueLength));
                rest = rest[(4 + valueLength)..];
            }
            else
            {
                tree?.Delete(key);
            }
        }
        if (!rest.IsEmpty) throw new FormatException($"{rest.Length} bytes follow the last of {count} operations.");
        return (count, largestKey, largestValue);
    }

    private static bool SameName(string name, ReadOnlySpan<byte> utf8)
    {
        Span<byte> buffer = stackalloc byte[256];
        int written = Encoding.UTF8.GetBytes(name, buffer);
        return buffer[..written].SequenceEqual(utf8);
    }

    private static FormatException Malformed(int operation) => new($"Operation {operation} of the write command is truncated or malformed.");
}
