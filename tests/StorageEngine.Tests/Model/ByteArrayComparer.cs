namespace StorageEngine.Tests.Model;

/// <summary>Orders byte strings bytewise (unsigned, shorter prefix first), the order the engine keeps keys in.</summary>
internal sealed class ByteArrayComparer : IComparer<byte[]>
{
    public static readonly ByteArrayComparer Instance = new();

    private ByteArrayComparer()
    {
    }

    public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);
}
