using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.Arm;
using System.Runtime.Intrinsics.X86;

namespace StorageEngine.Common;

/// <summary>
/// CRC-32C (Castagnoli), the checksum of pages and journal records, on the CPU's CRC32 instruction (SSE4.2 or
/// ARMv8) and a table only where neither exists. Written here rather than taken from System.IO.Hashing because
/// a commit also needs CRC arithmetic that library does not offer: joining lanes and running a register over
/// zeros by multiplication (<see cref="AppendZeros"/>), which derives a copied page's checksum from its changes.
/// </summary>
/// <remarks>
/// <para>
/// Where the CPU multiplies carry-less on 512-bit registers (VPCLMULQDQ, with AVX-512), inputs of 256 bytes and
/// more are folded (<see cref="Crc32CWide"/>): the CRC is linear, so a 128-bit block followed by d more bits
/// is worth, modulo the polynomial, the block times x^d, which two carry-less multiplies by constants bring
/// back to 128 bits. Sixteen such blocks move at once (four registers of four), 256 bytes per step, and the
/// last 128 bits go through two CRC32 instructions. That is two and a half times the speed of the lanes below
/// on a 4 KB page (52 against 19 GB/s on this project's machine), and a page checksum is on every commit's path.
/// </para>
/// <para>
/// Elsewhere: one CRC32 instruction waits for the previous one (about three cycles each), but the CPU can start
/// one every cycle. So a long input is cut into three lanes whose CRCs are computed side by side and then
/// joined: CRC(A‖B) is CRC(A) multiplied by x^(8·|B|) modulo the polynomial, plus CRC(B) started from zero.
/// The multipliers for the fixed lane lengths are computed once.
/// </para>
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
    /// Never inlined: its test of 512-bit support would otherwise go into each caller, and the precompiled
    /// (ReadyToRun) code of a method that tests an instruction set beyond its baseline is set aside for the JIT's
    /// wherever the answer differs, as it does on every AVX-512 machine: the journal's record writer and the page
    /// sealer were compiled again in every process's first commit (<c>docs/tuning.md</c>, Startup).
    /// </remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static uint Append(uint crc, ReadOnlySpan<byte> data) =>
        Crc32CWide.IsSupported && data.Length >= Crc32CWide.MinimumLength ? Crc32CWide.Append(crc, data) : AppendLanes(crc, data);

    /// <summary><see cref="Append"/> by three interleaved lanes of CRC32 instructions, or a table where the CPU has none.</summary>
    internal static uint AppendLanes(uint crc, ReadOnlySpan<byte> data)
    {
        if (!Sse42.X64.IsSupported && !Crc32.Arm64.IsSupported) return AppendTable(crc, data);
        while (data.Length >= 3 * LongLane) crc = ThreeLanes(crc, ref data, LongLane, LongLaneShift);
        while (data.Length >= 3 * ShortLane) crc = ThreeLanes(crc, ref data, ShortLane, ShortLaneShift);
        return Serial(crc, data);
    }

    /// <summary>
    /// <see cref="Append"/> a byte at a time through a table: the path of CPUs without a CRC32 instruction (and of
    /// runs with <c>DOTNET_EnableHWIntrinsic=0</c>). Runs on any CPU, so tests compare it with the others everywhere.
    /// </summary>
    internal static uint AppendTable(uint crc, ReadOnlySpan<byte> data)
    {
        foreach (byte b in data) crc = Table[(crc ^ b) & 0xFF] ^ (crc >> 8);
        return crc;
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

    internal static uint Serial(uint crc, ReadOnlySpan<byte> data)
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
    /// True where <see cref="AppendWord"/> and <see cref="AppendZeros"/> run on the CPU's CRC32 and carry-less
    /// multiply instructions; elsewhere a caller computes the whole CRC instead.
    /// </summary>
    internal static bool SparseSupported => Pclmulqdq.IsSupported && Sse42.X64.IsSupported;

    /// <summary>Continues a running CRC over eight bytes, read little-endian from <paramref name="word"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static uint AppendWord(uint crc, ulong word) => Step(crc, word);

    /// <summary>
    /// Continues a running CRC over <paramref name="count"/> zero bytes (a multiple of 8, below 64 KiB + 512) in
    /// at most two multiplications rather than a pass over them. With a register that starts from zero, this is
    /// what lets a sparse input, such as the XOR of two versions of a page, be checksummed at the cost of its
    /// non-zero words alone.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static uint AppendZeros(uint crc, int count)
    {
        if (count % 8 != 0 || (uint)count >= (uint)(ZeroBlocks.Length * ZeroBlockBytes))
            throw new ArgumentOutOfRangeException(nameof(count), count, "A multiple of 8 bytes below 64 KiB + 512.");
        int blocks = count / ZeroBlockBytes, words = count % ZeroBlockBytes / 8;
        if (blocks > 0) crc = ZeroBlocks[blocks].Apply(crc);
        if (words > 0) crc = ZeroWords[words].Apply(crc);
        return crc;
    }

    /// <summary>x^<paramref name="bits"/> modulo the polynomial, in reflected order (for <see cref="Crc32CWide"/>'s constants).</summary>
    internal static uint PowerOfX(int bits) => Multiplier.ZeroBits(bits);

    private const int ZeroBlockBytes = 512;
    // Multipliers for 8·k zero bytes (k below 64) and for 512·k (k up to 128): any count is one of each.
    private static readonly Multiplier[] ZeroWords = Multiplier.Powers(8, ZeroBlockBytes / 8);
    private static readonly Multiplier[] ZeroBlocks = Multiplier.Powers(ZeroBlockBytes, 65536 / ZeroBlockBytes + 1);

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

        private Multiplier(uint factor, ulong carrylessFactor)
        {
            _factor = factor;
            _carrylessFactor = carrylessFactor;
        }

        /// <summary>
        /// Multipliers for 0, <paramref name="count"/>, 2·<paramref name="count"/>, ... zero bytes (the first
        /// unused), each the one before times the second, rather than <see cref="ZeroBits"/> over every bit.
        /// </summary>
        public static Multiplier[] Powers(int count, int length)
        {
            var powers = new Multiplier[length];
            var step = new Multiplier(count);
            powers[0] = step;
            if (length > 1) powers[1] = step;
            for (int k = 2; k < length; k++)
                powers[k] = new Multiplier(MultiplyModP(powers[k - 1]._factor, step._factor), MultiplyModP((uint)powers[k - 1]._carrylessFactor, step._factor));
            return powers;
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public uint Apply(uint register) => Pclmulqdq.IsSupported && Sse42.X64.IsSupported
            ? (uint)Sse42.X64.Crc32(0, Pclmulqdq.CarrylessMultiply(Vector128.CreateScalarUnsafe((ulong)register), Vector128.CreateScalarUnsafe(_carrylessFactor), 0).ToScalar())
            : MultiplyModP(register, _factor);

        /// <summary>x^<paramref name="bits"/> modulo the polynomial, in reflected order.</summary>
        public static uint ZeroBits(int bits)
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
