using System.Runtime.InteropServices;

namespace StorageEngine.Replication;

/// <summary>
/// The end of a backup stream (format version 1, see <see cref="BackupStreamHeader"/>). A stream without it is
/// truncated and is refused.
/// <code>
/// offset size field
///      0    4 Magic           "BEND"
///      4    4 ChunkChecksums  CRC-32C over every chunk's Checksum field (4 bytes each), in order
///      8    8 Chunks          number of chunks
///     16    8 Pages           pages in all chunks; equals the header's CopiedPages
///     24    4 Checksum        CRC-32C of these 32 bytes with this field as zero
///     28    4 Reserved        zero
/// </code>
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = Size)]
internal struct BackupTrailer
{
    public const int Size = 32;
    public const uint MagicValue = 0x444E4542; // "BEND"
    public const int ChecksumOffset = 24;

    [FieldOffset(0)] public uint Magic;
    [FieldOffset(4)] public uint ChunkChecksums;
    [FieldOffset(8)] public long Chunks;
    [FieldOffset(16)] public long Pages;
    [FieldOffset(24)] public uint Checksum;
}
