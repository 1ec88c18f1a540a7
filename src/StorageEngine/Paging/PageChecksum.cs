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

    /// <summary>True when the page's checksum matches and it carries the expected number.</summary>
    public static bool IsValid(byte* page, int pageSize, long expectedPageNumber) =>
        ((PageHeader*)page)->PageNumber == expectedPageNumber && ((PageHeader*)page)->Checksum == Compute(page, pageSize);
}
