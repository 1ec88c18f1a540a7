using System.Runtime.InteropServices;

namespace StorageEngine.Journal;

/// <summary>
/// The start of every journal record, format version 3 or 4. A record is a header, a table of page runs, the diffs
/// of the runs stored as diffs, zero padding to the next multiple of the record's alignment, then the full
/// images of the other runs back to back; its total length is a multiple of its alignment and it starts at
/// such a multiple of its journal file. The alignment is 4 KB in a journal written unbuffered (Safe mode: the
/// device needs whole blocks, and a small commit takes one) and 64 bytes in a buffered one (Lazy mode: a
/// small commit takes a few hundred bytes of the page cache instead of a whole page).
/// <code>
/// offset size field
///      0    8 Magic          "SEJRNL03"; "SEJRNL04" when a run is in place (format 4: base page
///                            long.MinValue + 1, no image, a 4-byte CRC-32C of the pages as its diff);
///                            "SEJRNL02": format 2, the format 3 layout always aligned to 4 KB
///      8    8 EnvironmentId  must equal the data file header's
///     16    8 TransactionId  one more than the previous record's
///     24    4 RunCount       entries in the run table
///     28    4 PageSize
///     32    8 TotalLength    bytes of the whole record, padding included
///     40    4 HeaderLength   bytes of header, run table and diffs, before padding
///     44    4 Checksum       CRC-32C of the header (this field as zero), table, diffs and every full image
///     48    8 SessionId      the session (open) that wrote it; records of earlier sessions are never replayed
///     56    4 Alignment      4096 or 64 (format 2: zero, meaning 4096)
///     60    4 GroupIndex     records before this one in the same journal write (0 for the first; written as zero
///                            before 2026-11-28, which reads as a write of its own)
///     64  128 State          the environment state after this transaction (opaque to the journal)
///    192   24 per run:       u64 first page, u32 page count, u32 diff length,
///                            i64 base page (long.MinValue: full image; long.MinValue + 1: in place, the pages
///                            written into the data file before the record; -1: diff against zeros; else the
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
    /// <summary>Alignment of records written unbuffered, and the granularity of journal file sizes.</summary>
    public const int BlockSize = 4096;

    /// <summary>Alignment of records in a buffered (Lazy) journal: a cache line.</summary>
    public const int PackedAlignment = 64;

    public const ulong MagicValue = 0x33304C4E524A4553UL; // "SEJRNL03"

    /// <summary>
    /// Magic of format 4: the format 3 layout, with runs in place (see <see cref="JournalPageRun.InPlace"/>). Only
    /// records that have such a run carry it, so that a version that cannot replay them never reads them as
    /// format 3.
    /// </summary>
    public const ulong FormatFourMagic = 0x34304C4E524A4553UL; // "SEJRNL04"

    /// <summary>Magic of format 2: this layout with every record aligned to <see cref="BlockSize"/>; still replayed.</summary>
    public const ulong FormatTwoMagic = 0x32304C4E524A4553UL; // "SEJRNL02"

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
    [FieldOffset(56)] public int Alignment;
    /// <summary>
    /// Records before this one in the journal write that wrote it (a commit group): a damaged record is a torn tail,
    /// not corruption, when the intact records after it came in the same write (see JournalReader).
    /// </summary>
    [FieldOffset(60)] public int GroupIndex;
    [FieldOffset(64)] public fixed byte State[StateSize];

    /// <summary>True when this is a readable header (intact or not) of a record of the given environment and session.</summary>
    public bool Names(long environmentId, long sessionId) => IsReadable(Magic) && EnvironmentId == environmentId && SessionId == sessionId;

    /// <summary>True for the magic of a format this version replays (2, 3 and 4).</summary>
    public static bool IsReadable(ulong magic) => magic is MagicValue or FormatTwoMagic or FormatFourMagic;

    /// <summary>Bytes of header and run table, before the diffs.</summary>
    public static int HeaderLengthFor(int runCount) => Size + runCount * RunEntrySize;

    public static long AlignUp(long length) => AlignUp(length, BlockSize);

    /// <summary>Rounds up to a multiple of <paramref name="alignment"/>, a power of two.</summary>
    public static long AlignUp(long length, int alignment) => (length + alignment - 1) & ~(long)(alignment - 1);

    /// <summary>
    /// The record's alignment as its header gives it: 4 KB for format 2; for format 3 the field, which must be
    /// one of the two a writer uses (else 0: not a record this version can read).
    /// </summary>
    public readonly int RecordAlignment => Magic == FormatTwoMagic
        ? BlockSize
        : Alignment is BlockSize or PackedAlignment ? Alignment : 0;
}
