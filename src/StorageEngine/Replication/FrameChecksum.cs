using System.Runtime.InteropServices;
using StorageEngine.Common;

namespace StorageEngine.Replication;

/// <summary>CRC-32C of the stream formats' fixed-size frames, each of which holds its own checksum field.</summary>
internal static class FrameChecksum
{
    /// <summary>The bytes of a frame struct.</summary>
    public static Span<byte> Bytes<T>(ref T frame) where T : unmanaged => MemoryMarshal.AsBytes(MemoryMarshal.CreateSpan(ref frame, 1));

    /// <summary>Running CRC-32C of <paramref name="frame"/> with the 4-byte field at <paramref name="checksumOffset"/> taken as zero.</summary>
    public static uint Start(ReadOnlySpan<byte> frame, int checksumOffset)
    {
        uint crc = Crc32C.Append(Crc32C.Start, frame[..checksumOffset]);
        crc = Crc32C.Append(crc, stackalloc byte[4]);
        return Crc32C.Append(crc, frame[(checksumOffset + 4)..]);
    }

    /// <summary>The finished CRC-32C of a frame alone.</summary>
    public static uint Of(ReadOnlySpan<byte> frame, int checksumOffset) => Crc32C.Finish(Start(frame, checksumOffset));
}
