using System.Runtime.CompilerServices;
using StorageEngine.Common;

namespace StorageEngine.Paging;

/// <summary>Computes and checks the CRC-32C stored in <see cref="PageHeader.Checksum"/>.</summary>
internal static unsafe class PageChecksum
{
    /// <summary>Checksum of the page, taking the checksum field as zero.</summary>
    public static uint Compute(byte* page, int pageSize)
    {
        uint crc = Crc32C.Append(Crc32C.Start, new ReadOnlySpan<byte>(page, PageHeader.ChecksumOffset));
        crc = Crc32C.Append(crc, stackalloc byte[4]);
        int rest = PageHeader.ChecksumOffset + 4;
        crc = Crc32C.Append(crc, new ReadOnlySpan<byte>(page + rest, pageSize - rest));
        return Crc32C.Finish(crc);
    }

    public static void Stamp(byte* page, int pageSize) => ((PageHeader*)page)->Checksum = Compute(page, pageSize);

    /// <summary>
    /// The checksum of <paramref name="page"/> derived from the one <paramref name="basePage"/> carries and the
    /// words in which the two differ (<see cref="DifferingWords.Mark"/>), at the cost of those words rather than
    /// of the page; false when too much differs (or the CPU lacks the instructions) and <see cref="Compute"/> is
    /// cheaper. A copied page that a commit changed in a few places is the common case.
    /// </summary>
    /// <remarks>
    /// The CRC of equal-length inputs is affine: CRC(A) xor CRC(B) is the CRC of A xor B run from a zero register
    /// with no final inversion. That XOR is zero outside the differing words, and a zero register stays zero over
    /// zero bytes, so only the differing words are fed in, with each stretch of zeros between them applied as one
    /// multiplication (<see cref="Crc32C.AppendZeros"/>). The checksum field counts as zero in both pages. If the
    /// base's stored checksum is wrong (the base is damaged), so is the result: the damage stays detectable
    /// rather than being sealed in under a fresh checksum.
    /// </remarks>
    public static bool TryUpdate(byte* basePage, byte* page, int pageSize, ReadOnlySpan<ulong> differs, out uint checksum)
    {
        checksum = 0;
        int words = pageSize / DifferingWords.Word;
        if (!Crc32C.SparseSupported || differs.Length != DifferingWords.EntriesFor(pageSize) || DifferingWords.Count(differs) > words / MaxDifferingShare)
            return false;
        uint register = 0;
        int at = 0; // the word the register has reached
        for (int word = DifferingWords.Next(differs, 0, words, set: true); word < words; word = DifferingWords.Next(differs, word + 1, words, set: true))
        {
            ulong delta = ((ulong*)basePage)[word] ^ ((ulong*)page)[word];
            if (word == ChecksumWord) delta &= ~ChecksumMask;
            if (word > at && register != 0) register = Crc32C.AppendZeros(register, (word - at) * DifferingWords.Word);
            register = Crc32C.AppendWord(register, delta);
            at = word + 1;
        }
        if (words > at && register != 0) register = Crc32C.AppendZeros(register, (words - at) * DifferingWords.Word);
        checksum = ((PageHeader*)basePage)->Checksum ^ register;
        return true;
    }

    // Past an eighth of the page differing, feeding words one by one no longer beats the folded pass over all.
    private const int MaxDifferingShare = 8;
    private const int ChecksumWord = PageHeader.ChecksumOffset / DifferingWords.Word;
    // The checksum field's bytes within its little-endian word.
    private const ulong ChecksumMask = 0xFFFFFFFFUL << (PageHeader.ChecksumOffset % DifferingWords.Word * 8);

    /// <summary>True when the page's checksum matches and it carries the expected number.</summary>
    public static bool IsValid(byte* page, int pageSize, long expectedPageNumber) =>
        ((PageHeader*)page)->PageNumber == expectedPageNumber && ((PageHeader*)page)->Checksum == Compute(page, pageSize);
}
