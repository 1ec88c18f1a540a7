using System.Runtime.InteropServices;

namespace StorageEngine.Journal;

/// <summary>
/// The start of every journal record, format version 1. A record is a header, a table of page runs, zero
/// padding to the next 4 KB boundary, then the runs' bytes back to back; its total length is a multiple of
/// 4 KB and it starts on a 4 KB boundary of its journal file.
/// <code>
/// offset size field
///      0    8 Magic          "SEJRNL01"
///      8    8 EnvironmentId  must equal the data file header's
///     16    8 TransactionId  one more than the previous record's
///     24    4 RunCount       entries in the run table
///     28    4 PageSize
///     32    8 TotalLength    bytes of the whole record, padding included
///     40    4 HeaderLength   bytes of header and run table, before padding
///     44    4 Checksum       CRC-32C of the header (this field as zero), the table and every run's bytes
///     48    8 SessionId      the session (open) that wrote it; records of earlier sessions are never replayed
///     56    8 Reserved
///     64  128 State          the environment state after this transaction (opaque to the journal)
///    192   12 per run:       u64 first page number, u32 page count
/// </code>
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = Size)]
internal unsafe struct JournalRecordHeader
{
    public const int Size = 192;
    public const int StateSize = 128;
    public const int RunEntrySize = 12;
    public const int BlockSize = 4096;
    public const ulong MagicValue = 0x31304C4E524A4553UL; // "SEJRNL01"

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

    public static int HeaderLengthFor(int runCount) => Size + runCount * RunEntrySize;

    public static long AlignUp(long length) => (length + BlockSize - 1) & ~(long)(BlockSize - 1);
}
