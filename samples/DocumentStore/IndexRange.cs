namespace DocumentStore;

/// <summary>
/// Which values of an indexed field a query selects. Values of different JSON types never mix within a
/// bounded range: an open bound stops at the edge of the other bound's type (null &lt; false &lt; true &lt;
/// numbers &lt; strings).
/// </summary>
public sealed class IndexRange
{
    private IndexRange(byte[]? start, byte[]? end)
    {
        Start = start;
        End = end;
    }

    /// <summary>First index key of the range, null for the start of the index.</summary>
    internal byte[]? Start { get; }

    /// <summary>First index key past the range, null for the end of the index.</summary>
    internal byte[]? End { get; }

    /// <summary>Every document that has the field (any value).</summary>
    public static IndexRange All { get; } = new(null, null);

    /// <summary>Documents whose field equals <paramref name="value"/> (or, for an array, contains it).</summary>
    public static IndexRange Equal(IndexValue value) => new(IndexKeys.FirstKeyOf(value.Encoded), IndexKeys.PastKeysOf(value.Encoded));

    /// <summary>Values from <paramref name="min"/> (inclusive) to <paramref name="max"/> (exclusive, or inclusive when asked).</summary>
    public static IndexRange Between(IndexValue min, IndexValue max, bool maxInclusive = false) =>
        new(IndexKeys.FirstKeyOf(min.Encoded), maxInclusive ? IndexKeys.PastKeysOf(max.Encoded) : IndexKeys.FirstKeyOf(max.Encoded));

    /// <summary>Values of <paramref name="min"/>'s type from <paramref name="min"/> (inclusive) on.</summary>
    public static IndexRange AtLeast(IndexValue min) => new(IndexKeys.FirstKeyOf(min.Encoded), IndexKeys.PastType(min.Encoded));

    /// <summary>Values of <paramref name="max"/>'s type below <paramref name="max"/> (exclusive).</summary>
    public static IndexRange Below(IndexValue max) => new(IndexKeys.TypeStart(max.Encoded), IndexKeys.FirstKeyOf(max.Encoded));
}
