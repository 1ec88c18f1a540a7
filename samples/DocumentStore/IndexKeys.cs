using System.Buffers.Binary;
using System.Text;
using System.Text.Json;

namespace DocumentStore;

/// <summary>
/// Order-preserving encoding of JSON scalars for index keys: a type tag (null &lt; false &lt; true &lt; numbers
/// &lt; strings), then the value so that bytewise order is value order. An index key is the encoded value, a 0x00
/// separator and the document id in UTF-8.
/// </summary>
internal static class IndexKeys
{
    private const byte NullTag = 0x10, FalseTag = 0x20, TrueTag = 0x21, NumberTag = 0x30, StringTag = 0x40;
    private const byte Separator = 0x00;

    // Inside a string a 0x00 byte becomes 0x00 0xFF. UTF-8 never contains 0xFF, so after an encoded value the
    // separator is followed by an id byte below 0xFF, while a longer string that shares the prefix continues
    // with 0xFF: the keys of one value form the range [value 00, value 00 FF).
    private const byte EscapedZero = 0xFF;

    public static byte[] EncodeNull() => [NullTag];

    public static byte[] EncodeBoolean(bool value) => [value ? TrueTag : FalseTag];

    public static byte[] EncodeNumber(double value)
    {
        if (double.IsNaN(value)) throw new ArgumentException("NaN cannot be indexed.", nameof(value));
        if (value == 0) value = 0; // -0 and +0 are one value
        long bits = BitConverter.DoubleToInt64Bits(value);
        // IEEE 754 bits order positive numbers correctly; flip the sign bit to put them above the negatives,
        // and flip every bit of a negative number to reverse its order.
        ulong ordered = bits < 0 ? ~(ulong)bits : (ulong)bits | 0x8000_0000_0000_0000UL;
        var encoded = new byte[9];
        encoded[0] = NumberTag;
        BinaryPrimitives.WriteUInt64BigEndian(encoded.AsSpan(1), ordered);
        return encoded;
    }

    public static byte[] EncodeString(string value)
    {
        var utf8 = Encoding.UTF8.GetBytes(value);
        int zeros = utf8.AsSpan().Count((byte)0);
        var encoded = new byte[1 + utf8.Length + zeros];
        encoded[0] = StringTag;
        int j = 1;
        foreach (byte b in utf8)
        {
            encoded[j++] = b;
            if (b == 0) encoded[j++] = EscapedZero;
        }
        return encoded;
    }

    /// <summary>The encoded scalar, or null for objects and arrays (which are not indexed as values).</summary>
    public static byte[]? EncodeElement(JsonElement element) => element.ValueKind switch
    {
        JsonValueKind.Null => EncodeNull(),
        JsonValueKind.False => EncodeBoolean(false),
        JsonValueKind.True => EncodeBoolean(true),
        JsonValueKind.Number => EncodeNumber(element.GetDouble()),
        JsonValueKind.String => EncodeString(element.GetString()!),
        _ => null,
    };

    /// <summary>
    /// The encoded values of the field at <paramref name="path"/> (property names separated by dots) in
    /// <paramref name="document"/>: none when it is missing, each element when it is an array of scalars.
    /// </summary>
    public static List<byte[]> ExtractValues(JsonElement document, string path)
    {
        var values = new List<byte[]>();
        var element = document;
        foreach (var part in path.Split('.'))
        {
            if (element.ValueKind != JsonValueKind.Object || !element.TryGetProperty(part, out element)) return values;
        }
        if (element.ValueKind == JsonValueKind.Array)
        {
            foreach (var item in element.EnumerateArray())
            {
                var encoded = EncodeElement(item);
                if (encoded is not null && !values.Exists(v => v.AsSpan().SequenceEqual(encoded))) values.Add(encoded);
            }
        }
        else if (EncodeElement(element) is { } encoded) values.Add(encoded);
        return values;
    }

    /// <summary>Smallest key of any value of <paramref name="value"/>'s type (the high nibble of the tag).</summary>
    public static byte[] TypeStart(byte[] value) => [(byte)(value[0] & 0xF0)];

    /// <summary>First key past every value of <paramref name="value"/>'s type.</summary>
    public static byte[] PastType(byte[] value) => [(byte)((value[0] & 0xF0) + 0x10)];

    /// <summary>The index key of one value of one document.</summary>
    public static byte[] Key(byte[] value, ReadOnlySpan<byte> id)
    {
        var key = new byte[value.Length + 1 + id.Length];
        value.CopyTo(key, 0);
        key[value.Length] = Separator;
        id.CopyTo(key.AsSpan(value.Length + 1));
        return key;
    }

    /// <summary>Smallest key of any document whose value is <paramref name="value"/>.</summary>
    public static byte[] FirstKeyOf(byte[] value) => [.. value, Separator];

    /// <summary>First key past every document whose value is <paramref name="value"/>.</summary>
    public static byte[] PastKeysOf(byte[] value) => [.. value, Separator, EscapedZero];
}
