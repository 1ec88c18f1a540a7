using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace StorageEngine.Common;

/// <summary>
/// The 512-bit folding path of <see cref="Crc32C"/> (VPCLMULQDQ with AVX-512), for inputs of
/// <see cref="MinimumLength"/> bytes and more. A type of its own because its constants are 512-bit vectors: code
/// that touches them cannot be precompiled (ReadyToRun), and kept in <see cref="Crc32C"/> they made its static
/// constructor, and with it the lanes and the table every CPU runs, compile in each process that checksums anything.
/// </summary>
internal static class Crc32CWide
{
    /// <summary>True where <see cref="Append"/> runs: 512-bit carry-less multiplies and the CRC32 instruction.</summary>
    public static bool IsSupported => Pclmulqdq.V512.IsSupported && Sse42.X64.IsSupported;

    /// <summary>The shortest input <see cref="Append"/> takes: one step of its four registers.</summary>
    public const int MinimumLength = 256;

    /// <summary>
    /// <see cref="Crc32C.Append"/> by folding (see the remarks on <see cref="Crc32C"/>); only where
    /// <see cref="IsSupported"/>, for at least <see cref="MinimumLength"/> bytes.
    /// </summary>
    /// <remarks>
    /// Bit order: the CRC is reflected, so the first byte in memory holds the highest powers of x, and a carry-less
    /// product of two such 64-bit words, read the same way over 128 bits, comes out multiplied by x once more.
    /// A 32-bit constant c in a word's low half stands for c·x^32. Moving a 128-bit lane (first word p0, second
    /// p1, worth p0·x^64 + p1) forward by d bits thus takes p0 times x^(d+31) and p1 times x^(d−33) (see
    /// <see cref="FoldConstants"/>). At the end, CRC32 instructions from zero over the remaining 128 bits compute
    /// that value times x^32 modulo the polynomial, which is the running CRC.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static uint Append(uint crc, ReadOnlySpan<byte> data)
    {
        if (data.Length < MinimumLength) throw new ArgumentOutOfRangeException(nameof(data), data.Length, $"The folded CRC takes at least {MinimumLength} bytes.");
        ref byte first = ref MemoryMarshal.GetReference(data);
        int length = data.Length;
        // The running CRC enters as the first 32 bits of the input (linearity again).
        var z0 = Load512(ref first, 0) ^ Vector512.CreateScalar((ulong)crc);
        var z1 = Load512(ref first, 64);
        var z2 = Load512(ref first, 128);
        var z3 = Load512(ref first, 192);
        int at = 256;
        for (; at + 256 <= length; at += 256)
        {
            z0 = Fold(z0, Fold2048) ^ Load512(ref first, at);
            z1 = Fold(z1, Fold2048) ^ Load512(ref first, at + 64);
            z2 = Fold(z2, Fold2048) ^ Load512(ref first, at + 128);
            z3 = Fold(z3, Fold2048) ^ Load512(ref first, at + 192);
        }
        z1 ^= Fold(z0, Fold512);
        z2 ^= Fold(z1, Fold512);
        z3 ^= Fold(z2, Fold512);
        for (; at + 64 <= length; at += 64) z3 = Fold(z3, Fold512) ^ Load512(ref first, at);
        var x = Fold(z3.GetLower().GetLower(), Fold384) ^ Fold(z3.GetLower().GetUpper(), Fold256)
            ^ Fold(z3.GetUpper().GetLower(), Fold128) ^ z3.GetUpper().GetUpper();
        for (; at + 16 <= length; at += 16) x = Fold(x, Fold128) ^ Vector128.LoadUnsafe(ref Unsafe.Add(ref first, at)).AsUInt64();
        uint reduced = (uint)Sse42.X64.Crc32(0, x.ToScalar());
        reduced = (uint)Sse42.X64.Crc32(reduced, x.GetElement(1));
        return Crc32C.Serial(reduced, data[at..]);
    }

    private static readonly Vector128<ulong> Fold128 = FoldConstants(128);
    private static readonly Vector128<ulong> Fold256 = FoldConstants(256);
    private static readonly Vector128<ulong> Fold384 = FoldConstants(384);
    private static readonly Vector512<ulong> Fold512 = FoldConstantsInEveryLane(512);
    private static readonly Vector512<ulong> Fold2048 = FoldConstantsInEveryLane(2048);

    /// <summary>The multipliers that move a 128-bit lane forward by <paramref name="bits"/> (see <see cref="Append"/>).</summary>
    private static Vector128<ulong> FoldConstants(int bits) =>
        Vector128.Create((ulong)Crc32C.PowerOfX(bits + 31), Crc32C.PowerOfX(bits - 33));

    /// <summary><see cref="FoldConstants"/> in each of a 512-bit register's four lanes.</summary>
    private static Vector512<ulong> FoldConstantsInEveryLane(int bits)
    {
        var lane = FoldConstants(bits);
        var half = Vector256.Create(lane, lane);
        return Vector512.Create(half, half);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector512<ulong> Load512(ref byte first, int offset) => Vector512.LoadUnsafe(ref Unsafe.Add(ref first, offset)).AsUInt64();

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector512<ulong> Fold(Vector512<ulong> lanes, Vector512<ulong> constants) =>
        Pclmulqdq.V512.CarrylessMultiply(lanes, constants, 0x00) ^ Pclmulqdq.V512.CarrylessMultiply(lanes, constants, 0x11);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Fold(Vector128<ulong> lane, Vector128<ulong> constants) =>
        Pclmulqdq.CarrylessMultiply(lane, constants, 0x00) ^ Pclmulqdq.CarrylessMultiply(lane, constants, 0x11);
}
