using System.Runtime.InteropServices;

namespace StorageEngine.Replication;

/// <summary>
/// One chunk of a backup stream (format version 1, see <see cref="BackupStreamHeader"/>): this 32-byte
/// header, then <see cref="PageCount"/> consecutive pages starting at <see cref="FirstPage"/>.
/// <code>
/// offset size field
///      0    4 Magic      "PRUN"
///      4    4 PageCount  1 to the stream header's ChunkPages
///      8    8 FirstPage  page number of the first page; chunks come in ascending, non-overlapping order
///     16    8 Sequence   0 for the first chunk, then 1, 2, ...
///     24    4 Checksum   CRC-32C of this header (this field as zero) and the chunk's pages
///     28    4 Reserved   zero
/// </code>
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = Size)]
internal struct BackupChunkHeader
{
    public const int Size = 32;
    public const uint MagicValue = 0x4E555250; // "PRUN"
    public const int ChecksumOffset = 24;

    [FieldOffset(0)] public uint Magic;
    [FieldOffset(4)] public int PageCount;
    [FieldOffset(8)] public long FirstPage;
    [FieldOffset(16)] public long Sequence;
    [FieldOffset(24)] public uint Checksum;
}
