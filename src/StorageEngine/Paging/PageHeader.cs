using System.Runtime.InteropServices;

namespace StorageEngine.Paging;

/// <summary>
/// The first 32 bytes of every tree page and bitmap page (format version 1). Overflow pages have no header:
/// their contents are checksummed by the leaf entry that references them.
/// <code>
/// offset size field
///      0    8 PageNumber     the page's own number, so a page read from the wrong place is detected
///      8    4 Checksum       CRC-32C of the whole page with this field taken as zero
///     12    2 Flags          <see cref="PageFlags"/>
///     14    2 Count          number of entries (slots)
///     16    2 Upper          offset of the lowest entry byte; entries grow down from the page end
///     18    2 FragmentedBytes bytes of dead entries inside the entry area, reclaimed by compaction
///     20    4 Reserved
///     24    8 TransactionId  the transaction that last wrote the page
/// </code>
/// The slot array (ushort offsets of entries, in key order) starts right after the header.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = Size)]
internal struct PageHeader
{
    public const int Size = 32;
    public const int ChecksumOffset = 8;

    [FieldOffset(0)] public long PageNumber;
    [FieldOffset(8)] public uint Checksum;
    [FieldOffset(12)] public PageFlags Flags;
    [FieldOffset(14)] public ushort Count;
    [FieldOffset(16)] public ushort Upper;
    [FieldOffset(18)] public ushort FragmentedBytes;
    [FieldOffset(20)] public uint Reserved2;
    [FieldOffset(24)] public long TransactionId;
}
