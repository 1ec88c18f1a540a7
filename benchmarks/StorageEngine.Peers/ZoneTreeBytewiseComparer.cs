using ZoneTree.Comparers;

namespace StorageEngine.Peers;

/// <summary>
/// Orders ZoneTree's byte keys bytewise unsigned, a prefix before its extensions, as every engine of the
/// comparison does. ZoneTree's own <see cref="ByteArrayLexicographicComparerAscending"/> gives the same order
/// one byte per loop step; this one compares through the vectorised span comparison.
/// </summary>
internal sealed class ZoneTreeBytewiseComparer : IRefComparer<Memory<byte>>
{
    /// <summary>The one instance the store hands to ZoneTree.</summary>
    internal static ZoneTreeBytewiseComparer Instance { get; } = new();

    /// <inheritdoc />
    public int Compare(in Memory<byte> x, in Memory<byte> y) => x.Span.SequenceCompareTo(y.Span);
}
