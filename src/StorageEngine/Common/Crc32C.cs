using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.Arm;
using System.Runtime.Intrinsics.X86;

namespace StorageEngine.Common;

/// <summary>
/// CRC-32C (Castagnoli), the checksum of pages and journal records. System.IO.Hashing is not available from
/// the package source this project builds against, so this uses the CPU's CRC32 instruction (SSE4.2 or
/// ARMv8) and a table only where neither exists.
/// </summary>
/// <remarks>
/// One CRC32 instruction waits for the previous one (about three cycles each), but the CPU can start one
/// every cycle. So a long input is cut into three lanes whose CRCs are computed side by side and then joined:
/// the CRC is linear, so CRC(A‖B) is CRC(A) multiplied by x^(8·|B|) modulo the polynomial, plus CRC(B)
/// started from zero. The multipliers for the fixed lane lengths are computed once.
/// </remarks>
internal static class Crc32C
{
    private const uint Polynomial = 0x82F63B78u; // reflected Castagnoli
    private static readonly uint[] Table = BuildTable();

    // Lane lengths: long ones for journal records, short ones for a page. Joining costs two multiplications.
    private const int LongLane = 8192;
    private const int ShortLane = 256;
    private static readonly Multiplier LongLaneShift = new(LongLane);
    private static readonly Multiplier ShortLaneShift = new(ShortLane);

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
        if (!Sse42.X64.IsSupported && !Crc32.Arm64.IsSupported)
        {
            foreach (byte b in data) crc = Table[(crc ^ b) & 0xFF] ^ (crc >> 8);
            return crc;
        }
        while (data.Length >= 3 * LongLane) crc = ThreeLanes(crc, ref data, LongLane, LongLaneShift);
        while (data.Length >= 3 * ShortLane) crc = ThreeLanes(crc, ref data, ShortLane, ShortLaneShift);
        return Serial(crc, data);
    }

    /// <summary>CRC over the first three lanes of <paramref name="data"/>, which it then skips.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint ThreeLanes(uint crc, ref ReadOnlySpan<byte> data, int lane, Multiplier shift)
    {
        ref byte first = ref MemoryMarshal.GetReference(data);
        uint a = crc, b = 0, c = 0;
        for (int i = 0; i < lane; i += 8)
        {
            a = Step(a, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref first, i)));
            b = Step(b, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref first, lane + i)));
            c = Step(c, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref first, 2 * lane + i)));
        }
        data = data[(3 * lane)..];
        return shift.Apply(shift.Apply(a) ^ b) ^ c;
    }

    private static uint Serial(uint crc, ReadOnlySpan<byte> data)
    {
        while (data.Length >= 8)
        {
            crc = Step(crc, BinaryPrimitives.ReadUInt64LittleEndian(data));
            data = data[8..];
        }
        foreach (byte b in data) crc = Sse42.X64.IsSupported ? Sse42.Crc32(crc, b) : Crc32.ComputeCrc32C(crc, b);
        return crc;
    }

    /// <summary>One CRC32 instruction over eight little-endian bytes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint Step(uint crc, ulong data) =>
        Sse42.X64.IsSupported ? (uint)Sse42.X64.Crc32(crc, data) : Crc32.Arm64.ComputeCrc32C(crc, data);

    /// <summary>
    /// What running a register over a fixed number of zero bytes does to it: multiply it by x^(8·count)
    /// modulo the polynomial (in a register's reflected order, bit 31 holding x⁰).
    /// </summary>
    private sealed class Multiplier
    {
        private readonly uint _factor;
        // For a carry-less multiply followed by a CRC32 instruction over its 64-bit product, which together
        // multiply by the factor times x³³ (the reflected product sits one bit low, and the instruction
        // appends 32 zero bits): so the factor is x^(8·count − 33). Crc32CTests checks it against the loop.
        private readonly ulong _carrylessFactor;

        public Multiplier(int count)
        {
            _factor = ZeroBits(8 * count);
            _carrylessFactor = ZeroBits(8 * count - 33);
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public uint Apply(uint register) => Pclmulqdq.IsSupported && Sse42.X64.IsSupported
            ? (uint)Sse42.X64.Crc32(0, Pclmulqdq.CarrylessMultiply(Vector128.CreateScalarUnsafe((ulong)register), Vector128.CreateScalarUnsafe(_carrylessFactor), 0).ToScalar())
            : MultiplyModP(register, _factor);

        /// <summary>x^<paramref name="bits"/> modulo the polynomial, in reflected order.</summary>
        private static uint ZeroBits(int bits)
        {
            uint register = 1u << 31; // the polynomial 1
            for (int i = 0; i < bits; i++) register = (register & 1) != 0 ? (register >> 1) ^ Polynomial : register >> 1;
            return register;
        }

        /// <summary>The product of two polynomials modulo the CRC polynomial, in reflected order.</summary>
        private static uint MultiplyModP(uint a, uint b)
        {
            uint product = 0;
            for (uint bit = 1u << 31; bit != 0; bit >>= 1)
            {
                if ((a & bit) != 0) product ^= b;
                b = (b & 1) != 0 ? (b >> 1) ^ Polynomial : b >> 1;
            }
            return product;
        }
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
