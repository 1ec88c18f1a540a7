using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace StorageEngine.Journal;

/// <summary>
/// The changes that turn one page into another, as a journal record carries them: a sequence of
/// <c>[u16 offset][u16 length][length bytes]</c>, each range replacing the base page's bytes. Ranges are found
/// 8 bytes at a time and merged across short equal gaps, since each costs 4 bytes of framing.
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
    /// diff would exceed <see cref="MaxLength"/> and the page should be written whole.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // hot from the first commit and in recovery
    public static int Encode(ReadOnlySpan<byte> basePage, ReadOnlySpan<byte> page, Span<byte> output)
    {
        int pageSize = page.Length;
        int limit = MaxLength(pageSize);
        var words = MemoryMarshal.Cast<byte, ulong>(page);
        var baseWords = basePage.IsEmpty ? default : MemoryMarshal.Cast<byte, ulong>(basePage);
        int count = words.Length;
        int written = 0;
        int i = 0;
        while (i < count)
        {
            // Skip equal stretches quickly: whole spans compare vectorised.
            if (baseWords.IsEmpty)
            {
                int next = words[i..].IndexOfAnyExcept(0UL);
                if (next < 0) break;
                i += next;
            }
            else
            {
                int next = words[i..].CommonPrefixLength(baseWords[i..]);
                i += next;
                if (i >= count) break;
            }
            int start = i;
            int end = i + 1;
            // Extend while words differ, bridging equal gaps of up to one word.
            while (end < count)
            {
                if (Differs(words, baseWords, end)) { end++; continue; }
                if (end + 1 < count && Differs(words, baseWords, end + 1)) { end += 2; continue; }
                break;
            }
            int length = (end - start) * Word;
            if (written + RangeHeader + length > limit) return -1;
            BinaryPrimitives.WriteUInt16LittleEndian(output[written..], (ushort)(start * Word));
            BinaryPrimitives.WriteUInt16LittleEndian(output[(written + 2)..], (ushort)length);
            page.Slice(start * Word, length).CopyTo(output[(written + RangeHeader)..]);
            written += RangeHeader + length;
            i = end;
        }
        return written;
    }

    private static bool Differs(ReadOnlySpan<ulong> words, ReadOnlySpan<ulong> baseWords, int index) =>
        words[index] != (baseWords.IsEmpty ? 0UL : baseWords[index]);

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
