namespace StorageEngine.Peers.Tests;

/// <summary>Orders keys the way <see cref="IKeyValueStore"/> promises: bytewise, unsigned, a prefix first.</summary>
public sealed class BytewiseComparer : IComparer<byte[]>
{
    /// <summary>The one instance.</summary>
    public static BytewiseComparer Instance { get; } = new();

    private BytewiseComparer() { }

    /// <inheritdoc />
    public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);
}
