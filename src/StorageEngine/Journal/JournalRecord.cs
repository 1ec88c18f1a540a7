using System.Runtime.InteropServices;
using StorageEngine.Common;
using StorageEngine.Platform;

namespace StorageEngine.Journal;

/// <summary>A record read back from a journal file, its layout and checksum verified.</summary>
internal sealed class JournalRecord
{
    private JournalRecord(byte[] bytes, List<JournalRecordRun> runs, long fileNumber, long offset)
    {
        Bytes = bytes;
        Runs = runs;
        FileNumber = fileNumber;
        Offset = offset;
    }

    /// <summary>The whole record, padding included.</summary>
    public byte[] Bytes { get; }

    /// <summary>The runs in table order.</summary>
    public List<JournalRecordRun> Runs { get; }

    public long FileNumber { get; }

    public long Offset { get; }

    private ref readonly JournalRecordHeader Header => ref MemoryMarshal.AsRef<JournalRecordHeader>(Bytes.AsSpan(0, JournalRecordHeader.Size));

    public long TransactionId => Header.TransactionId;

    public long TotalLength => Header.TotalLength;

    /// <summary>Records before this one in the journal write that wrote it (see <see cref="JournalRecordHeader.GroupIndex"/>).</summary>
    public int GroupIndex => Header.GroupIndex;

    public int RunCount => Runs.Count;

    /// <summary>The environment state after the transaction (opaque to the journal).</summary>
    public ReadOnlySpan<byte> State => Bytes.AsSpan(64, JournalRecordHeader.StateSize);

    /// <summary>A run's bytes: its full images, or its <see cref="PageDiff"/>.</summary>
    public ReadOnlySpan<byte> Data(JournalRecordRun run) => Bytes.AsSpan(run.Offset, run.Length);

    /// <summary>
    /// The i-th run: its first page, page count, and bytes: the full image, or when
    /// <paramref name="basePage"/> is not <see cref="JournalPageRun.FullImage"/>, the <see cref="PageDiff"/>
    /// that turns the base page (zeros for <see cref="JournalPageRun.ZeroPage"/>) into it.
    /// </summary>
    public ReadOnlySpan<byte> GetRun(int index, out long firstPage, out int pageCount, out long basePage)
    {
        var run = Runs[index];
        (firstPage, pageCount, basePage) = (run.FirstPage, run.PageCount, run.BasePage);
        return Data(run);
    }

    /// <summary>True when some run's pages went into the data file before the record (see <see cref="JournalPageRun.InPlace"/>).</summary>
    public bool HasRunsInPlace
    {
        get
        {
            foreach (var run in Runs)
            {
                if (run.IsInPlace) return true;
            }
            return false;
        }
    }

    /// <summary>
    /// The record with each in-place run replaced by its full images, read from the data file through
    /// <paramref name="readPages"/> (first page, bytes to fill) and checked against the CRC-32C the record holds
    /// for them: what a reader that has no data file (a replica) needs. Null when the data file no longer holds
    /// the pages as the record wrote them (they were freed and written again since).
    /// </summary>
    public JournalRecord? WithRunsInPlaceRead(int pageSize, Action<long, Span<byte>> readPages)
    {
        long extra = 0;
        foreach (var run in Runs)
        {
            if (run.IsInPlace) extra += (long)run.PageCount * pageSize;
        }
        if (extra == 0) return this;
        if (Bytes.Length + extra > Array.MaxLength) return null;
        var bytes = new byte[Bytes.Length + extra];
        Bytes.CopyTo(bytes, 0);
        var runs = new List<JournalRecordRun>(Runs.Count);
        int at = Bytes.Length;
        foreach (var run in Runs)
        {
            if (!run.IsInPlace)
            {
                runs.Add(run);
                continue;
            }
            int length = run.PageCount * pageSize;
            var image = bytes.AsSpan(at, length);
            readPages(run.FirstPage, image);
            uint expected = MemoryMarshal.Read<uint>(Data(run));
            if (Crc32C.Compute(image) != expected) return null;
            runs.Add(new JournalRecordRun(run.FirstPage, run.PageCount, JournalPageRun.FullImage, at, length));
            at += length;
        }
        return new JournalRecord(bytes, runs, FileNumber, Offset);
    }

    /// <summary>
    /// Reads and verifies the record at <paramref name="offset"/>: null when there is none, or it is torn,
    /// damaged, malformed, or of another session (what a reused file left behind).
    /// </summary>
    /// <exception cref="CorruptionException">An intact record of another environment.</exception>
    /// <exception cref="StorageException">A record of this session in journal format 1, which this version does not replay.</exception>
    public static JournalRecord? TryRead(IStorageFile file, long fileNumber, long offset, int pageSize, long environmentId, long sessionId)
    {
        if (offset + JournalRecordHeader.Size > file.Length) return null;
        Span<byte> head = stackalloc byte[JournalRecordHeader.Size];
        if (file.Read(offset, head) != head.Length) return null;
        var header = MemoryMarshal.Read<JournalRecordHeader>(head);
        if (header.Magic == JournalRecordHeader.FormatOneMagic && header.EnvironmentId == environmentId && header.SessionId == sessionId)
            throw new StorageException($"'{file.Path}' holds journal records of format 1, written by an older version of StorageEngine and not yet checkpointed. Open the environment once with that version and close it cleanly, then open it with this one.");
        if (!JournalRecordHeader.IsReadable(header.Magic)) return null;
        int alignment = header.RecordAlignment;
        if (alignment == 0 || offset % alignment != 0) return null;
        if (header.PageSize != pageSize || header.RunCount < 0 || header.RunCount > (int.MaxValue - JournalRecordHeader.Size) / JournalRecordHeader.RunEntrySize
            || header.HeaderLength < JournalRecordHeader.HeaderLengthFor(header.RunCount)
            || header.TotalLength < JournalRecordHeader.AlignUp(header.HeaderLength, alignment) || header.TotalLength % alignment != 0
            || header.TotalLength > file.Length - offset || header.TotalLength > int.MaxValue)
            return null;

        var bytes = new byte[header.TotalLength];
        if (file.Read(offset, bytes) != bytes.Length) return null;
        long images = JournalRecordHeader.AlignUp(header.HeaderLength, alignment);
        var runs = ReadRuns(bytes, header, pageSize, images);
        if (runs is null) return null;

        // The checksum covers the header, table and diffs (checksum field as zero) and the full images, not the padding.
        var check = bytes.AsSpan();
        uint stored = header.Checksum;
        MemoryMarshal.Write(check[44..], 0u);
        uint crc = Crc32C.Append(Crc32C.Start, check[..header.HeaderLength]);
        crc = Crc32C.Finish(Crc32C.Append(crc, check[(int)images..]));
        MemoryMarshal.Write(check[44..], stored);
        if (crc != stored) return null;
        if (header.EnvironmentId != environmentId)
            throw new CorruptionException(file.Path, offset, $"the journal record belongs to another environment (id {header.EnvironmentId:X16}, expected {environmentId:X16}).");
        // A record of an earlier session is what a reused file left behind: already applied, or lost with a
        // Lazy session's power loss. Either way it is not part of this journal.
        if (header.SessionId != sessionId) return null;
        return new JournalRecord(bytes, runs, fileNumber, offset);
    }

    /// <summary>The run table, checked against the layout: diffs after the table, full images after the padding.</summary>
    private static List<JournalRecordRun>? ReadRuns(byte[] bytes, in JournalRecordHeader header, int pageSize, long images)
    {
        long diffs = JournalRecordHeader.HeaderLengthFor(header.RunCount);
        var runs = new List<JournalRecordRun>(header.RunCount);
        for (int i = 0; i < header.RunCount; i++)
        {
            var entry = bytes.AsSpan(JournalRecordHeader.Size + i * JournalRecordHeader.RunEntrySize);
            long firstPage = MemoryMarshal.Read<long>(entry);
            int pageCount = MemoryMarshal.Read<int>(entry[8..]);
            int diffLength = MemoryMarshal.Read<int>(entry[12..]);
            long basePage = MemoryMarshal.Read<long>(entry[16..]);
            if (firstPage < 0 || pageCount <= 0 || diffLength < 0) return null;
            if (basePage == JournalPageRun.FullImage)
            {
                long length = (long)pageCount * pageSize;
                if (diffLength != 0 || images + length > header.TotalLength) return null;
                runs.Add(new JournalRecordRun(firstPage, pageCount, basePage, (int)images, (int)length));
                images += length;
            }
            else if (basePage == JournalPageRun.InPlace)
            {
                if (header.Magic != JournalRecordHeader.FormatFourMagic || diffLength != sizeof(uint) || diffs + diffLength > header.HeaderLength) return null;
                runs.Add(new JournalRecordRun(firstPage, pageCount, basePage, (int)diffs, diffLength));
                diffs += diffLength;
            }
            else
            {
                if (pageCount != 1 || basePage < JournalPageRun.ZeroPage || diffs + diffLength > header.HeaderLength) return null;
                runs.Add(new JournalRecordRun(firstPage, pageCount, basePage, (int)diffs, diffLength));
                diffs += diffLength;
            }
        }
        return images == header.TotalLength && diffs == header.HeaderLength ? runs : null;
    }
}
