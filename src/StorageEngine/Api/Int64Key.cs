using System.Buffers.Binary;

namespace StorageEngine;

/// <summary>
/// The 8-byte form of integer keys: big-endian with the sign bit flipped, so that bytewise order is the
/// numeric order of signed values.
/// </summary>
public static class Int64Key
{
    /// <summary>Bytes of an encoded key.</summary>
    public const int Size = 8;

    /// <summary>Writes the key's 8-byte form.</summary>
    public static void Write(Span<byte> destination, long key) =>
        BinaryPrimitives.WriteUInt64BigEndian(destination, (ulong)key ^ 0x8000_0000_0000_0000UL);

    /// <summary>Reads a key from its 8-byte form.</summary>
    public static long Read(ReadOnlySpan<byte> source) =>
        (long)(BinaryPrimitives.ReadUInt64BigEndian(source) ^ 0x8000_0000_0000_0000UL);
}
