using System.Runtime.InteropServices;

namespace StorageEngine.Replication;

/// <summary>
/// One committed transaction in a journal shipping stream (format version 1, see
/// <see cref="ShippingStreamHeader"/>): this 192-byte header, a table of <see cref="RunCount"/> runs (24 bytes
/// each, in ascending page order), then each run's bytes in table order (<see cref="PayloadBytes"/> in all). It
/// carries what the primary's journal record carries: every page the transaction wrote, free-space bitmap
/// pages included, each as its full image or as a diff against a page the replica holds too, and the
/// environment state after the transaction.
/// <code>
/// offset size field
///      0    4 Magic                  "TXRC"
///      4    4 RunCount               entries in the run table
///      8    8 TransactionId          one more than the previous record's
///     16    8 PayloadBytes           bytes after the table: the runs' images and diffs
///     24    4 Checksum               CRC-32C of this header (this field as zero), the table and the payload
///     28    4 PreviousStateChecksum  CRC-32C of the 128-byte state before this transaction (see Flags)
///     32    4 Flags                  1: PreviousStateChecksum is set (the primary knew that state)
///     36   28 Reserved               zero
///     64  128 State                  the EnvironmentState after this transaction
/// run table entry (24 bytes):
///      0    8 FirstPage              where the run goes
///      8    4 PageCount              pages in the run
///     12    4 DiffLength             bytes of the diff; 0 for a full image
///     16    8 BasePage               long.MinValue: the payload holds PageCount full page images;
///                                    -1: a diff (one page) against a page of zeros;
///                                    otherwise a diff (one page) against that page as of the previous transaction
/// </code>
/// A diff is a sequence of <c>[u16 offset][u16 length][bytes]</c> ranges replacing the base page's bytes (the
/// journal's page diff); the rebuilt page must pass its own checksum. A replica compares
/// PreviousStateChecksum with its own state, so one that diverged from the primary (written to locally, or
/// ahead of a primary that lost a Lazy tail) refuses the record.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = Size)]
internal unsafe struct ShippedRecordHeader
{
    public const int Size = 192;
    public const uint MagicValue = 0x43525854; // "TXRC"
    public const int ChecksumOffset = 24;
    public const int RunEntrySize = 24;
    public const uint HasPreviousState = 1;

    [FieldOffset(0)] public uint Magic;
    [FieldOffset(4)] public int RunCount;
    [FieldOffset(8)] public long TransactionId;
    [FieldOffset(16)] public long PayloadBytes;
    [FieldOffset(24)] public uint Checksum;
    [FieldOffset(28)] public uint PreviousStateChecksum;
    [FieldOffset(32)] public uint Flags;
    [FieldOffset(64)] public fixed byte State[128];
}
