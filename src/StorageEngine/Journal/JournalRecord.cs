using System.Runtime.InteropServices;

namespace StorageEngine.Journal;

/// <summary>A record read back from a journal file, checksum verified.</summary>
internal sealed class JournalRecord
{
    private readonly byte[] _bytes;

    public JournalRecord(byte[] bytes, long fileNumber, long offset)
    {
        _bytes = bytes;
        FileNumber = fileNumber;
        Offset = offset;
    }

    public long FileNumber { get; }

    public long Offset { get; }

    private ref readonly JournalRecordHeader Header => ref MemoryMarshal.AsRef<JournalRecordHeader>(_bytes.AsSpan(0, JournalRecordHeader.Size));

    public long TransactionId => Header.TransactionId;

    public long TotalLength => Header.TotalLength;

    public int RunCount => Header.RunCount;

    public ReadOnlySpan<byte> State => _bytes.AsSpan(64, JournalRecordHeader.StateSize);

    /// <summary>The i-th run: its first page, page count and bytes.</summary>
    public ReadOnlySpan<byte> GetRun(int index, out long firstPage, out int pageCount)
    {
        var table = _bytes.AsSpan(JournalRecordHeader.Size + index * JournalRecordHeader.RunEntrySize, JournalRecordHeader.RunEntrySize);
        firstPage = MemoryMarshal.Read<long>(table);
        pageCount = MemoryMarshal.Read<int>(table[8..]);
        long start = JournalRecordHeader.AlignUp(Header.HeaderLength);
        for (int i = 0; i < index; i++)
            start += (long)MemoryMarshal.Read<int>(_bytes.AsSpan(JournalRecordHeader.Size + i * JournalRecordHeader.RunEntrySize + 8)) * Header.PageSize;
        return _bytes.AsSpan((int)start, pageCount * Header.PageSize);
    }
}
