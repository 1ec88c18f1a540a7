using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace StorageEngine.Journal;

/// <summary>
/// The changes that turn one page into another, as a journal record carries them: a sequence of
/// <c>[u16 offset][u16 length][length bytes]</c>, each range replacing the base page's bytes. Ranges are found
/// 8 bytes at a time and merged across equal gaps of one word, since each costs 4 bytes of framing.
/// </summary>
internal static class PageDiff
{
    private const int Word = 8;
    private const int RangeHeader = 4;

    /// <summary>Largest diff worth writing for a page: beyond it the full image costs about as much.</summary>
    public static int MaxLength(int pageSize) => pageSize / 2;

    /// <summary>
    /// Encodes how <paramref name="page"/> differs from <paramref name="basePage"/> (all zeros when empty) into
    /// <paramref name="output"/> (at least <see cref="MaxLength"/> bytes). Returns the length, or -1 when the
    /// diff would exceed <see cref="MaxLength"/> and the page should be written whole. The page's length is a
    /// multiple of 512 bytes, up to 64 KiB.
    /// </summary>
    /// <remarks>
    /// The pages are compared first, 64 or 32 bytes at a time, into a bitmap of the words that differ; the
    /// ranges come from that bitmap. Comparing word by word while building ranges, with a vectorised skip over
    /// equal stretches, took 1.6 to 1.8 times as long on a 4 KiB page with a few small edits (175 against 100
    /// ns), for every page of every commit.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // hot from the first commit and in recovery
    public static int Encode(ReadOnlySpan<byte> basePage, ReadOnlySpan<byte> page, Span<byte> output)
    {
        int pageSize = page.Length;
        if (pageSize % 512 != 0 || pageSize > ushort.MaxValue + 1 || (!basePage.IsEmpty && basePage.Length != pageSize))
            throw new ArgumentException($"A page to diff is a multiple of 512 bytes up to 64 KiB, its base empty or as long ({pageSize} and {basePage.Length} bytes).", nameof(page));
        int limit = MaxLength(pageSize);
        int count = pageSize / Word;
        Span<ulong> differs = stackalloc ulong[count / 64];
        MarkDifferingWords(basePage, page, differs);
        int written = 0;
        for (int start = NextWord(differs, 0, count, set: true); start < count; )
        {
            // Extend while words differ, bridging equal gaps of up to one word.
            int end = NextWord(differs, start + 1, count, set: false);
            while (end + 1 < count && IsSet(differs, end + 1)) end = NextWord(differs, end + 2, count, set: false);
            int length = (end - start) * Word;
            if (written + RangeHeader + length > limit) return -1;
            BinaryPrimitives.WriteUInt16LittleEndian(output[written..], (ushort)(start * Word));
            BinaryPrimitives.WriteUInt16LittleEndian(output[(written + 2)..], (ushort)length);
            page.Slice(start * Word, length).CopyTo(output[(written + RangeHeader)..]);
            written += RangeHeader + length;
            start = NextWord(differs, end, count, set: true);
        }
        return written;
    }

    /// <summary>Sets bit <c>i</c> of <paramref name="differs"/> where 8-byte word <c>i</c> of the pages differs.</summary>
    private static void MarkDifferingWords(ReadOnlySpan<byte> basePage, ReadOnlySpan<byte> page, Span<ulong> differs)
    {
        bool zeros = basePage.IsEmpty;
        ref byte pageBytes = ref MemoryMarshal.GetReference(page);
        ref byte baseBytes = ref MemoryMarshal.GetReference(basePage);
        // Each bitmap word covers 512 bytes: eight blocks of 64, or sixteen of 32.
        for (int w = 0; w < differs.Length; w++)
        {
            nuint at = (nuint)w * 512;
            ulong bits = 0;
            if (Vector512.IsHardwareAccelerated)
            {
                for (int k = 0; k < 8; k++, at += 64)
                {
                    var words = Vector512.LoadUnsafe(ref pageBytes, at);
                    var baseWords = zeros ? Vector512<byte>.Zero : Vector512.LoadUnsafe(ref baseBytes, at);
                    bits |= (~Vector512.Equals(words.AsUInt64(), baseWords.AsUInt64()).ExtractMostSignificantBits() & 0xFF) << (k * 8);
                }
            }
            else if (Vector256.IsHardwareAccelerated)
            {
                for (int k = 0; k < 16; k++, at += 32)
                {
                    var words = Vector256.LoadUnsafe(ref pageBytes, at);
                    var baseWords = zeros ? Vector256<byte>.Zero : Vector256.LoadUnsafe(ref baseBytes, at);
                    bits |= (~Vector256.Equals(words.AsUInt64(), baseWords.AsUInt64()).ExtractMostSignificantBits() & 0xF) << (k * 4);
                }
            }
            else
            {
                for (int k = 0; k < 64; k++, at += 8)
                {
                    ulong word = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref pageBytes, at));
                    ulong baseWord = zeros ? 0 : Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref baseBytes, at));
                    if (word != baseWord) bits |= 1UL << k;
                }
            }
            differs[w] = bits;
        }
    }

    private static bool IsSet(ReadOnlySpan<ulong> bits, int index) => (bits[index >> 6] & (1UL << (index & 63))) != 0;

    /// <summary>The first word at or after <paramref name="from"/> whose bit is <paramref name="set"/>, or <paramref name="count"/>.</summary>
    private static int NextWord(ReadOnlySpan<ulong> bits, int from, int count, bool set)
    {
        int index = from >> 6;
        if (index >= bits.Length) return count;
        ulong word = (set ? bits[index] : ~bits[index]) & (ulong.MaxValue << (from & 63));
        while (word == 0)
        {
            if (++index == bits.Length) return count;
            word = set ? bits[index] : ~bits[index];
        }
        return Math.Min(count, index * 64 + BitOperations.TrailingZeroCount(word));
    }

    /// <summary>Applies <paramref name="diff"/> to <paramref name="page"/> in place; false when the diff is malformed.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // hot from the first commit and in recovery
    public static bool TryApply(ReadOnlySpan<byte> diff, Span<byte> page)
    {
        int at = 0;
        while (at < diff.Length)
        {
            if (diff.Length - at < RangeHeader) return false;
            int offset = BinaryPrimitives.ReadUInt16LittleEndian(diff[at..]);
            int length = BinaryPrimitives.ReadUInt16LittleEndian(diff[(at + 2)..]);
            at += RangeHeader;
            if (length > diff.Length - at || offset + length > page.Length) return false;
            diff.Slice(at, length).CopyTo(page[offset..]);
            at += length;
        }
        return true;
    }
}
