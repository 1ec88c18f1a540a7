using System.Runtime.InteropServices;

namespace StorageEngine.Paging;

/// <summary>
/// The checkpoint header, format version 2 (version 1 files, whose state has no hot tree, are read, and become
/// version 2 at their next checkpoint; a build that reads only version 1 refuses them then). Two copies live at
/// the start of pages 0 and 1 of the data file; a checkpoint overwrites the older copy (sequence parity), so a
/// torn header write leaves the other intact. The copy with a valid checksum and the higher sequence wins.
/// <code>
/// offset size field
///      0    8 Magic                   "SEDBHDR1" (ASCII, little-endian ulong)
///      8    4 FormatVersion           2 (1: no hot tree in the state, see EnvironmentState)
///     12    4 PageSize                bytes per page, a power of two from 4096 to 32768
///     16    4 Checksum                CRC-32C of these 192 bytes with this field taken as zero
///     20    4 Flags                   <see cref="DataFileHeaderFlags"/> of the session that wrote it
///     24    8 EnvironmentId           random, fixed at creation; journal records must carry the same
///     32    8 Sequence                incremented by every header write
///     40    8 CheckpointTransactionId the data file holds every transaction up to this one
///     48    8 JournalFileNumber       the journal file to start recovery from
///     56    8 SessionId               random per open; only journal records stamped with it are replayed
///     64  128 State                   the environment state as of CheckpointTransactionId (opaque here)
/// </code>
/// A clean close's free-page count follows it in the same page, outside its checksum: see
/// <see cref="DataFileHeaderTrailer"/> (optional; the format version is unchanged).
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = Size)]
internal unsafe struct DataFileHeader
{
    public const int Size = 192;
    public const int StateSize = 128;
    public const ulong MagicValue = 0x3152444842444553UL; // "SEDBHDR1"
    public const uint CurrentFormatVersion = 2;

    /// <summary>The oldest format this build reads.</summary>
    public const uint OldestFormatVersion = 1;

    [FieldOffset(0)] public ulong Magic;
    [FieldOffset(8)] public uint FormatVersion;
    [FieldOffset(12)] public int PageSize;
    [FieldOffset(16)] public uint Checksum;
    [FieldOffset(20)] public DataFileHeaderFlags Flags;
    [FieldOffset(24)] public long EnvironmentId;
    [FieldOffset(32)] public long Sequence;
    [FieldOffset(40)] public long CheckpointTransactionId;
    [FieldOffset(48)] public long JournalFileNumber;
    [FieldOffset(56)] public long SessionId;
    [FieldOffset(64)] public fixed byte State[StateSize];

    public uint ComputeChecksum()
    {
        DataFileHeader copy = this;
        copy.Checksum = 0;
        return Common.Crc32C.Compute(new ReadOnlySpan<byte>(&copy, Size));
    }
}
