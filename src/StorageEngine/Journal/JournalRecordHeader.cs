using System.Runtime.InteropServices;

namespace StorageEngine.Journal;

/// <summary>
/// The start of every journal record, format version 2. A record is a header, a table of page runs, the diffs
/// of the runs stored as diffs, zero padding to the next 4 KB boundary, then the full images of the other
/// runs back to back; its total length is a multiple of 4 KB and it starts on a 4 KB boundary of its journal
/// file. A small commit therefore fits in one 4 KB block.
/// <code>
/// offset size field
///      0    8 Magic          "SEJRNL02"
///      8    8 EnvironmentId  must equal the data file header's
///     16    8 TransactionId  one more than the previous record's
///     24    4 RunCount       entries in the run table
///     28    4 PageSize
///     32    8 TotalLength    bytes of the whole record, padding included
///     40    4 HeaderLength   bytes of header, run table and diffs, before padding
///     44    4 Checksum       CRC-32C of the header (this field as zero), table, diffs and every full image
///     48    8 SessionId      the session (open) that wrote it; records of earlier sessions are never replayed
///     56    8 Reserved
///     64  128 State          the environment state after this transaction (opaque to the journal)
///    192   24 per run:       u64 first page, u32 page count, u32 diff length,
///                            i64 base page (long.MinValue: full image; -1: diff against zeros; else the
///                            committed page the diff applies to; diffs are single pages)
/// </code>
/// A diff (see <see cref="PageDiff"/>) is replayed by reading its base page from the data file, which recovery
/// can trust because a page freed after the last checkpoint is not reused before the next one.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = Size)]
internal unsafe struct JournalRecordHeader
{
    public const int Size = 192;
    public const int StateSize = 128;
    public const int RunEntrySize = 24;
    public const int BlockSize = 4096;
    public const ulong MagicValue = 0x32304C4E524A4553UL; // "SEJRNL02"

    /// <summary>Magic of format 1 (full page images, 12-byte run entries), which this version does not replay.</summary>
    public const ulong FormatOneMagic = 0x31304C4E524A4553UL; // "SEJRNL01"

    [FieldOffset(0)] public ulong Magic;
    [FieldOffset(8)] public long EnvironmentId;
    [FieldOffset(16)] public long TransactionId;
    [FieldOffset(24)] public int RunCount;
    [FieldOffset(28)] public int PageSize;
    [FieldOffset(32)] public long TotalLength;
    [FieldOffset(40)] public int HeaderLength;
    [FieldOffset(44)] public uint Checksum;
    [FieldOffset(48)] public long SessionId;
    [FieldOffset(56)] public long Reserved;
    [FieldOffset(64)] public fixed byte State[StateSize];

    /// <summary>Bytes of header and run table, before the diffs.</summary>
    public static int HeaderLengthFor(int runCount) => Size + runCount * RunEntrySize;

    public static long AlignUp(long length) => (length + BlockSize - 1) & ~(long)(BlockSize - 1);
}
