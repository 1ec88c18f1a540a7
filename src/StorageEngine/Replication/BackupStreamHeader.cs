using System.Runtime.InteropServices;

namespace StorageEngine.Replication;

/// <summary>
/// The start of a backup stream, format version 1. A backup stream is the data of one snapshot: this header,
/// then chunks (<see cref="BackupChunkHeader"/> followed by its pages) in ascending page order, then a
/// <see cref="BackupTrailer"/>. The chunks carry every page the snapshot's trees reach (tree pages and
/// overflow values) under their own page numbers; header and free-space bitmap pages are not carried: restore
/// writes new checkpoint headers and rebuilds the bitmaps from the carried set, so a restored data file has
/// the same page numbers as the original. All integers are little-endian.
/// <code>
/// offset size field
///      0    8 Magic          "SEBACKUP"
///      8    4 FormatVersion  1
///     12    4 PageSize       bytes per page
///     16    8 EnvironmentId  the source's; the restored environment keeps it, so journal shipping can continue
///     24    8 PageCount      pages of the snapshot's data file (used or free)
///     32    8 CopiedPages    pages the chunks carry in all
///     40    4 ChunkPages     most pages in one chunk
///     44    4 Checksum       CRC-32C of these 256 bytes with this field as zero
///     48   16 Reserved       zero
///     64  128 State          the snapshot's EnvironmentState (transaction id, page count, tree of names)
///    192   64 Reserved       zero
/// </code>
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = Size)]
internal unsafe struct BackupStreamHeader
{
    public const int Size = 256;
    public const ulong MagicValue = 0x50554B4341424553UL; // "SEBACKUP"
    public const uint CurrentFormatVersion = 1;
    public const int ChecksumOffset = 44;

    [FieldOffset(0)] public ulong Magic;
    [FieldOffset(8)] public uint FormatVersion;
    [FieldOffset(12)] public int PageSize;
    [FieldOffset(16)] public long EnvironmentId;
    [FieldOffset(24)] public long PageCount;
    [FieldOffset(32)] public long CopiedPages;
    [FieldOffset(40)] public int ChunkPages;
    [FieldOffset(44)] public uint Checksum;
    [FieldOffset(64)] public fixed byte State[128];
}
