using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics.Arm;
using System.Runtime.Intrinsics.X86;

namespace StorageEngine.Common;

/// <summary>
/// CRC-32C (Castagnoli), the checksum of pages and journal records. System.IO.Hashing is not available from
/// the package source this project builds against, so this uses the CPU's CRC32 instruction (SSE4.2 or
/// ARMv8) and a table only where neither exists.
/// </summary>
internal static class Crc32C
{
    private const uint Polynomial = 0x82F63B78u; // reflected Castagnoli
    private static readonly uint[] Table = BuildTable();

    /// <summary>CRC-32C of <paramref name="data"/>.</summary>
    public static uint Compute(ReadOnlySpan<byte> data) => Finish(Append(Start, data));

    /// <summary>The running value to start an incremental computation with.</summary>
    public const uint Start = 0xFFFFFFFFu;

    /// <summary>The final CRC of a running value.</summary>
    public static uint Finish(uint running) => ~running;

    /// <summary>Continues a running CRC over more data.</summary>
    /// <remarks>
    /// Optimized from its first call: recovery and the first reads after an open checksum every page they
    /// touch before tiered compilation would have optimized this loop.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static uint Append(uint crc, ReadOnlySpan<byte> data)
    {
        if (Sse42.X64.IsSupported)
        {
            ulong c = crc;
            while (data.Length >= 8)
            {
                c = Sse42.X64.Crc32(c, BinaryPrimitives.ReadUInt64LittleEndian(data));
                data = data[8..];
            }
            crc = (uint)c;
            foreach (byte b in data) crc = Sse42.Crc32(crc, b);
            return crc;
        }
        if (Crc32.Arm64.IsSupported)
        {
            while (data.Length >= 8)
            {
                crc = Crc32.Arm64.ComputeCrc32C(crc, BinaryPrimitives.ReadUInt64LittleEndian(data));
                data = data[8..];
            }
            foreach (byte b in data) crc = Crc32.ComputeCrc32C(crc, b);
            return crc;
        }
        foreach (byte b in data) crc = Table[(crc ^ b) & 0xFF] ^ (crc >> 8);
        return crc;
    }

    private static uint[] BuildTable()
    {
        var table = new uint[256];
        for (uint i = 0; i < 256; i++)
        {
            uint c = i;
            for (int k = 0; k < 8; k++) c = (c & 1) != 0 ? (c >> 1) ^ Polynomial : c >> 1;
            table[i] = c;
        }
        return table;
    }
}
