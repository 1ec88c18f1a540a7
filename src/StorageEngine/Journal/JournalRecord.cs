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

    /// <summary>
    /// The i-th run: its first page, page count, and bytes: the full image, or when
    /// <paramref name="basePage"/> is not <see cref="JournalPageRun.FullImage"/>, the <see cref="PageDiff"/>
    /// that turns the base page (zeros for <see cref="JournalPageRun.ZeroPage"/>) into it.
    /// </summary>
    public ReadOnlySpan<byte> GetRun(int index, out long firstPage, out int pageCount, out long basePage)
    {
        firstPage = Entry(index, out pageCount, out int diffLength, out basePage);
        long diffAt = JournalRecordHeader.HeaderLengthFor(RunCount);
        long imageAt = JournalRecordHeader.AlignUp(Header.HeaderLength);
        for (int i = 0; i < index; i++)
        {
            Entry(i, out int count, out int length, out long previousBase);
            if (previousBase == JournalPageRun.FullImage) imageAt += (long)count * Header.PageSize;
            else diffAt += length;
        }
        return basePage == JournalPageRun.FullImage
            ? _bytes.AsSpan((int)imageAt, pageCount * Header.PageSize)
            : _bytes.AsSpan((int)diffAt, diffLength);
    }

    private long Entry(int index, out int pageCount, out int diffLength, out long basePage)
    {
        var table = _bytes.AsSpan(JournalRecordHeader.Size + index * JournalRecordHeader.RunEntrySize, JournalRecordHeader.RunEntrySize);
        pageCount = MemoryMarshal.Read<int>(table[8..]);
        diffLength = MemoryMarshal.Read<int>(table[12..]);
        basePage = MemoryMarshal.Read<long>(table[16..]);
        return MemoryMarshal.Read<long>(table);
    }
}
