using System.Runtime.InteropServices;

namespace StorageEngine.Replication;

/// <summary>
/// The start of a journal shipping stream, format version 1. The stream is this header, then one record
/// (<see cref="ShippedRecordHeader"/>, its run table and its pages) per committed transaction, in transaction
/// order starting at <see cref="AfterTransactionId"/> + 1, for as long as the primary ships. There is no end
/// marker: a stream that ends between records simply ends (the replica stays consistent at the last record
/// and resumes from it); one that ends inside a record is truncated. All integers are little-endian.
/// <code>
/// offset size field
///      0    8 Magic               "SEREPLIC"
///      8    4 FormatVersion       1
///     12    4 PageSize            bytes per page
///     16    8 EnvironmentId       the primary's; a replica of another environment refuses the stream
///     24    8 AfterTransactionId  the first record is of the next transaction
///     32    4 Checksum            CRC-32C of these 64 bytes with this field as zero
///     36   28 Reserved            zero
/// </code>
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = Size)]
internal struct ShippingStreamHeader
{
    public const int Size = 64;
    public const ulong MagicValue = 0x43494C5045524553UL; // "SEREPLIC"
    public const uint CurrentFormatVersion = 1;
    public const int ChecksumOffset = 32;

    [FieldOffset(0)] public ulong Magic;
    [FieldOffset(8)] public uint FormatVersion;
    [FieldOffset(12)] public int PageSize;
    [FieldOffset(16)] public long EnvironmentId;
    [FieldOffset(24)] public long AfterTransactionId;
    [FieldOffset(32)] public uint Checksum;
}
