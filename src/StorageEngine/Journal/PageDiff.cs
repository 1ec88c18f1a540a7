using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using StorageEngine.Common;

namespace StorageEngine.Journal;

/// <summary>
/// The changes that turn one page into another, as a journal record carries them: a sequence of
/// <c>[u16 offset][u16 length][length bytes]</c>, each range replacing the base page's bytes. Ranges are found
/// 8 bytes at a time and merged across equal gaps of one word, since each costs 4 bytes of framing.
/// </summary>
internal static class PageDiff
{
    private const int Word = DifferingWords.Word;
    private const int RangeHeader = 4;

    /// <summary>Largest diff worth writing for a page: beyond it the full image costs about as much.</summary>
    public static int MaxLength(int pageSize) => pageSize / 2;

    /// <summary>
    /// Encodes how <paramref name="page"/> differs from <paramref name="basePage"/> (all zeros when empty) into
    /// <paramref name="output"/> (at least <see cref="MaxLength"/> bytes). Returns the length, or -1 when the
    /// diff would exceed <see cref="MaxLength"/> and the page should be written whole. The page's length is a
    /// multiple of 512 bytes, up to 64 KiB.
    /// </summary>
    public static int Encode(ReadOnlySpan<byte> basePage, ReadOnlySpan<byte> page, Span<byte> output)
    {
        CheckLengths(basePage, page);
        Span<ulong> differs = stackalloc ulong[DifferingWords.EntriesFor(page.Length)];
        DifferingWords.Mark(basePage, page, differs);
        return Encode(page, differs, output);
    }

    /// <summary>
    /// <see cref="Encode(ReadOnlySpan{byte}, ReadOnlySpan{byte}, Span{byte})"/> from the words already found to
    /// differ (<see cref="DifferingWords.Mark"/>): the ranges cover exactly those words, bridging single equal ones.
    /// </summary>
    public static int Encode(ReadOnlySpan<byte> page, ReadOnlySpan<ulong> differs, Span<byte> output)
    {
        CheckLengths(default, page);
        int limit = MaxLength(page.Length);
        int count = page.Length / Word;
        if (differs.Length != DifferingWords.EntriesFor(page.Length))
            throw new ArgumentException($"The bitmap of differing words has {differs.Length} entries, not the {DifferingWords.EntriesFor(page.Length)} of a {page.Length}-byte page.", nameof(differs));
        int written = 0;
        for (int start = DifferingWords.Next(differs, 0, count, set: true); start < count; )
        {
            // Extend while words differ, bridging equal gaps of up to one word.
            int end = DifferingWords.Next(differs, start + 1, count, set: false);
            while (end + 1 < count && DifferingWords.IsSet(differs, end + 1)) end = DifferingWords.Next(differs, end + 2, count, set: false);
            int length = (end - start) * Word;
            if (written + RangeHeader + length > limit) return -1;
            BinaryPrimitives.WriteUInt16LittleEndian(output[written..], (ushort)(start * Word));
            BinaryPrimitives.WriteUInt16LittleEndian(output[(written + 2)..], (ushort)length);
            page.Slice(start * Word, length).CopyTo(output[(written + RangeHeader)..]);
            written += RangeHeader + length;
            start = DifferingWords.Next(differs, end, count, set: true);
        }
        return written;
    }

    private static void CheckLengths(ReadOnlySpan<byte> basePage, ReadOnlySpan<byte> page)
    {
        int pageSize = page.Length;
        if (pageSize % 512 != 0 || pageSize > ushort.MaxValue + 1 || (!basePage.IsEmpty && basePage.Length != pageSize))
            throw new ArgumentException($"A page to diff is a multiple of 512 bytes up to 64 KiB, its base empty or as long ({pageSize} and {basePage.Length} bytes).", nameof(page));
    }

    /// <summary>Applies <paramref name="diff"/> to <paramref name="page"/> in place; false when the diff is malformed.</summary>
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
