namespace StorageEngine.Cluster.Protocol;

/// <summary>The first byte of a client request frame.</summary>
internal enum RequestKind : byte
{
    /// <summary>An encoded write command; answered with its log index.</summary>
    Write = 1,

    /// <summary>Consistency byte, tree name (length byte, UTF-8), key; answered with a found byte and the value.</summary>
    Get = 2,

    /// <summary>Consistency byte, tree name; answered with the tree's entry count (int64).</summary>
    Count = 3,

    /// <summary>No body; answered with the node's <see cref="ClusterNode.DescribeState"/> line.</summary>
    Status = 4,
}
