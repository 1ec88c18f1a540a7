using System.Buffers.Binary;

namespace QuickStart;

/// <summary>
/// The sample's data, computed from the item number alone, so any phase can check what it reads without
/// keeping a copy. Keys are 16 bytes: the item number big-endian (so keys sort in item order and share
/// prefixes with their neighbours), then 8 bytes of a hash of it. Values are 90 to 110 bytes (100 on average).
/// </summary>
internal static class ItemGenerator
{
    public const int KeySize = 16;
    public const int MaxValueSize = 110;

    public static void WriteKey(long item, Span<byte> key)
    {
        BinaryPrimitives.WriteUInt64BigEndian(key, (ulong)item);
        BinaryPrimitives.WriteUInt64BigEndian(key[8..], Mix((ulong)item));
    }

    /// <summary>Writes the value of <paramref name="item"/> and returns its length.</summary>
    public static int WriteValue(long item, Span<byte> value)
    {
        ulong state = Mix((ulong)item ^ 0x5DEECE66DUL);
        int length = 90 + (int)(state % 21);
        Span<byte> word = stackalloc byte[8];
        for (int i = 0; i < length; i += 8)
        {
            state = Mix(state);
            BinaryPrimitives.WriteUInt64LittleEndian(word, state);
            word[..Math.Min(8, length - i)].CopyTo(value[i..]);
        }
        return length;
    }

    /// <summary>The item number a key was made from.</summary>
    public static long ItemOf(ReadOnlySpan<byte> key) => (long)BinaryPrimitives.ReadUInt64BigEndian(key);

    /// <summary>True when <paramref name="key"/> and <paramref name="value"/> are exactly item <paramref name="item"/>'s.</summary>
    public static bool Matches(long item, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        Span<byte> expectedKey = stackalloc byte[KeySize];
        Span<byte> expectedValue = stackalloc byte[MaxValueSize];
        WriteKey(item, expectedKey);
        int length = WriteValue(item, expectedValue);
        return key.SequenceEqual(expectedKey) && value.SequenceEqual(expectedValue[..length]);
    }

    /// <summary>SplitMix64's finalizer: a cheap, well-spread hash.</summary>
    private static ulong Mix(ulong x)
    {
        x += 0x9E3779B97F4A7C15UL;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
        return x ^ (x >> 31);
    }
}
