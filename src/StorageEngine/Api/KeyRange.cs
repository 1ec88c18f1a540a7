namespace StorageEngine;

/// <summary>
/// Bounds for a cursor: keys from <see cref="Start"/> (inclusive) up to <see cref="End"/> (exclusive).
/// A missing bound is open. The default range holds every key.
/// </summary>
public readonly struct KeyRange
{
    /// <summary>Creates a range; null bounds are open.</summary>
    public KeyRange(byte[]? start, byte[]? end)
    {
        if (start is not null && end is not null && start.AsSpan().SequenceCompareTo(end) > 0)
            throw new ArgumentException("The range's start is after its end.", nameof(start));
        Start = start;
        End = end;
    }

    /// <summary>Smallest key in the range, or null for no lower bound.</summary>
    public byte[]? Start { get; }

    /// <summary>First key past the range, or null for no upper bound.</summary>
    public byte[]? End { get; }

    /// <summary>Every key that starts with <paramref name="prefix"/>.</summary>
    public static KeyRange Prefix(ReadOnlySpan<byte> prefix)
    {
        if (prefix.IsEmpty) return default;
        var start = prefix.ToArray();
        // The end is the prefix with its last byte that is not 0xFF incremented and the rest dropped.
        int i = prefix.Length - 1;
        while (i >= 0 && prefix[i] == 0xFF) i--;
        if (i < 0) return new KeyRange(start, null);
        var end = prefix[..(i + 1)].ToArray();
        end[i]++;
        return new KeyRange(start, end);
    }

    /// <summary>Keys from <paramref name="start"/> (inclusive) to <paramref name="end"/> (exclusive).</summary>
    public static KeyRange Between(ReadOnlySpan<byte> start, ReadOnlySpan<byte> end) => new(start.ToArray(), end.ToArray());

    /// <summary>Integer keys from <paramref name="start"/> (inclusive) to <paramref name="end"/> (exclusive).</summary>
    public static KeyRange Between(long start, long end)
    {
        var s = new byte[Int64Key.Size];
        var e = new byte[Int64Key.Size];
        Int64Key.Write(s, start);
        Int64Key.Write(e, end);
        return new KeyRange(s, e);
    }

    /// <summary>Keys from <paramref name="start"/> on.</summary>
    public static KeyRange From(ReadOnlySpan<byte> start) => new(start.ToArray(), null);

    /// <summary>True for the range with no bounds, which holds every key.</summary>
    internal bool IsAll => Start is null && End is null;

    /// <summary>True when <paramref name="key"/> lies in the range.</summary>
    public bool Contains(ReadOnlySpan<byte> key) =>
        (Start is null || BTrees.KeyOrder.Compare(key, Start) >= 0) && (End is null || BTrees.KeyOrder.Compare(key, End) < 0);
}
