namespace StorageEngine.Tests.Batch;

/// <summary>The engine's key order (bytewise, a prefix first), for model dictionaries.</summary>
internal sealed class ByteKeyComparer : IComparer<byte[]>
{
    public static readonly ByteKeyComparer Instance = new();

    public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);
}
