using System.Buffers.Binary;

namespace StorageEngine.Peers.Tests;

/// <summary>Key and value builders for the tests.</summary>
public static class Keys
{
    /// <summary>An 8-byte big-endian integer key, so that numeric and bytewise order agree.</summary>
    public static byte[] Int(ulong value)
    {
        var key = new byte[8];
        BinaryPrimitives.WriteUInt64BigEndian(key, value);
        return key;
    }

    /// <summary>The UTF-8 bytes of <paramref name="text"/>.</summary>
    public static byte[] Text(string text) => System.Text.Encoding.UTF8.GetBytes(text);

    /// <summary><paramref name="length"/> bytes, each derived from <paramref name="seed"/> and its index.</summary>
    public static byte[] Value(int seed, int length)
    {
        var value = new byte[length];
        for (int i = 0; i < length; i++) value[i] = unchecked((byte)(seed * 31 + i * 7 + 1));
        return value;
    }

    /// <summary>Hex, for failure messages.</summary>
    public static string Hex(byte[] bytes) => Convert.ToHexString(bytes);
}
