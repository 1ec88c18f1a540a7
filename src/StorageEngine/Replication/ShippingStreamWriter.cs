using System.Buffers;
using System.Buffers.Binary;
using System.IO.Pipelines;
using StorageEngine.Common;
using StorageEngine.Journal;

namespace StorageEngine.Replication;

/// <summary>Writes the journal shipping stream (format in <see cref="ShippingStreamHeader"/>).</summary>
internal static class ShippingStreamWriter
{
    public static int WriteHeader(PipeWriter destination, int pageSize, long environmentId, long afterTransactionId)
    {
        var header = new ShippingStreamHeader
        {
            Magic = ShippingStreamHeader.MagicValue,
            FormatVersion = ShippingStreamHeader.CurrentFormatVersion,
            PageSize = pageSize,
            EnvironmentId = environmentId,
            AfterTransactionId = afterTransactionId,
        };
        var bytes = FrameChecksum.Bytes(ref header);
        header.Checksum = FrameChecksum.Of(bytes, ShippingStreamHeader.ChecksumOffset);
        destination.Write(bytes);
        return bytes.Length;
    }

    /// <summary>Writes the transaction of a (verified) journal record; returns the bytes written.</summary>
    /// <param name="destination">The stream.</param>
    /// <param name="record">The journal record, as <see cref="JournalTail"/> read it.</param>
    /// <param name="previousStateChecksum">CRC-32C of the state before the transaction, when known.</param>
    public static unsafe long WriteRecord(PipeWriter destination, JournalRecord record, uint? previousStateChecksum)
    {
        var table = new byte[record.Runs.Count * ShippedRecordHeader.RunEntrySize];
        long payload = 0;
        for (int i = 0; i < record.Runs.Count; i++)
        {
            var run = record.Runs[i];
            var entry = table.AsSpan(i * ShippedRecordHeader.RunEntrySize);
            BinaryPrimitives.WriteInt64LittleEndian(entry, run.FirstPage);
            BinaryPrimitives.WriteInt32LittleEndian(entry[8..], run.PageCount);
            BinaryPrimitives.WriteInt32LittleEndian(entry[12..], run.BasePage == JournalPageRun.FullImage ? 0 : run.Length);
            BinaryPrimitives.WriteInt64LittleEndian(entry[16..], run.BasePage);
            payload += run.Length;
        }
        var header = new ShippedRecordHeader
        {
            Magic = ShippedRecordHeader.MagicValue,
            RunCount = record.Runs.Count,
            TransactionId = record.TransactionId,
            PayloadBytes = payload,
            PreviousStateChecksum = previousStateChecksum ?? 0,
            Flags = previousStateChecksum is null ? 0 : ShippedRecordHeader.HasPreviousState,
        };
        record.State.CopyTo(new Span<byte>(header.State, JournalRecordHeader.StateSize));
        var headerBytes = FrameChecksum.Bytes(ref header);
        uint crc = Crc32C.Append(FrameChecksum.Start(headerBytes, ShippedRecordHeader.ChecksumOffset), table);
        foreach (var run in record.Runs) crc = Crc32C.Append(crc, record.Data(run));
        header.Checksum = Crc32C.Finish(crc);
        destination.Write(headerBytes);
        destination.Write(table);
        foreach (var run in record.Runs) destination.Write(record.Data(run));
        return headerBytes.Length + table.Length + payload;
    }
}
