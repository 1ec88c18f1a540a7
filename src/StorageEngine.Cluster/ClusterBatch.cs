using System.Buffers;
using System.Buffers.Binary;
using System.Text;
using StorageEngine.Cluster.Replication;

namespace StorageEngine.Cluster;

/// <summary>
/// Puts and deletes on named trees that the cluster applies together, in one write transaction on every node, in
/// the order they were added. Build one, then pass it to <see cref="ClusterNode.WriteAsync"/> or
/// <see cref="ClusterClient.WriteAsync"/>. Not thread-safe.
/// </summary>
public sealed class ClusterBatch
{
    /// <summary>
    /// The most bytes one batch may take in the log (4 MiB). Every node applies a batch in one transaction, and a
    /// transaction the engine cannot commit stops the node's log, so batches stay well inside what one commit holds.
    /// </summary>
    public const int MaxEncodedSize = 4 << 20;

    private readonly ArrayBufferWriter<byte> _operations = new();

    /// <summary>The number of operations added.</summary>
    public int Count { get; private set; }

    /// <summary>The size of the encoded operations, in bytes.</summary>
    public int EncodedSize => _operations.WrittenCount;

    /// <summary>Adds a put of <paramref name="value"/> under <paramref name="key"/> in tree <paramref name="tree"/> (created when missing).</summary>
    /// <exception cref="ArgumentException">The tree name is empty, longer than 255 UTF-8 bytes or reserved, the key is empty, or the batch grew past <see cref="MaxEncodedSize"/>.</exception>
    public ClusterBatch Put(string tree, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        Add(WriteCommand.Put, tree, key, value);
        return this;
    }

    /// <summary>Adds a put of UTF-8 text, for samples and tests.</summary>
    public ClusterBatch Put(string tree, string key, string value) =>
        Put(tree, Encoding.UTF8.GetBytes(key), Encoding.UTF8.GetBytes(value));

    /// <summary>Adds a delete of <paramref name="key"/> from tree <paramref name="tree"/> (nothing happens when it is missing).</summary>
    /// <exception cref="ArgumentException">As for <see cref="Put(string, ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>.</exception>
    public ClusterBatch Delete(string tree, ReadOnlySpan<byte> key)
    {
        Add(WriteCommand.Delete, tree, key, default);
        return this;
    }

    /// <summary>Removes every operation.</summary>
    public void Clear()
    {
        _operations.Clear();
        Count = 0;
    }

    /// <summary>The log entry's payload: the header with <paramref name="requestId"/>, then the operations.</summary>
    internal byte[] Encode(Guid requestId)
    {
        if (Count == 0) throw new InvalidOperationException("The batch is empty; add a put or a delete first.");
        var payload = new byte[WriteCommand.HeaderSize + _operations.WrittenCount];
        WriteCommand.WriteHeader(payload, requestId, Count);
        _operations.WrittenSpan.CopyTo(payload.AsSpan(WriteCommand.HeaderSize));
        return payload;
    }

    private void Add(byte kind, string tree, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        int nameLength = TreeName.Check(tree, nameof(tree));
        if (tree == WriteCommand.ClusterTreeName)
            throw new ArgumentException($"The tree name '{tree}' is reserved for the cluster's own record of the applied log index.", nameof(tree));
        if (key.IsEmpty)
            throw new ArgumentException("A key is at least 1 byte long.", nameof(key));
        long size = 1 + 1 + nameLength + 4 + key.Length + (kind == WriteCommand.Put ? 4 + (long)value.Length : 0);
        if (WriteCommand.HeaderSize + _operations.WrittenCount + size > MaxEncodedSize)
            throw new ArgumentException($"The batch would grow past {MaxEncodedSize} bytes; split it.", nameof(value));

        var span = _operations.GetSpan((int)size);
        span[0] = kind;
        span[1] = (byte)nameLength;
        int at = 2 + Encoding.UTF8.GetBytes(tree, span[2..]);
        BinaryPrimitives.WriteInt32LittleEndian(span[at..], key.Length);
        key.CopyTo(span[(at + 4)..]);
        at += 4 + key.Length;
        if (kind == WriteCommand.Put)
        {
            BinaryPrimitives.WriteInt32LittleEndian(span[at..], value.Length);
            value.CopyTo(span[(at + 4)..]);
            at += 4 + value.Length;
        }
        _operations.Advance(at);
        Count++;
    }
}
