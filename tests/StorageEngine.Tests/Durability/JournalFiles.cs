using System.Runtime.InteropServices;
using StorageEngine.Journal;
using StorageEngine.Platform;

namespace StorageEngine.Tests.Durability;

/// <summary>Finds journal files and the records in them, and damages them, for tests of recovery.</summary>
internal static class JournalFiles
{
    /// <summary>Paths of the journal files in use (not the recycled ones), lowest number first.</summary>
    public static List<string> InUse(IReadOnlyList<string> names, string directory) =>
        names.Where(n => JournalFileNames.TryParse(n, out _))
            .OrderBy(n => { JournalFileNames.TryParse(n, out long number); return number; })
            .Select(n => Path.Combine(directory, n))
            .ToList();

    /// <summary>The journal file records are appended to: the highest numbered one.</summary>
    public static string Current(MemoryFileSystem fileSystem, string directory) => InUse(fileSystem.ListFiles(directory), directory)[^1];

    public static byte[] Read(MemoryFileSystem fileSystem, string path)
    {
        using var file = fileSystem.Open(path, StorageFileMode.Buffered);
        var bytes = new byte[file.Length];
        Assert.Equal(bytes.Length, file.Read(0, bytes));
        return bytes;
    }

    /// <summary>Replaces the whole content of the file, durably.</summary>
    public static void Write(MemoryFileSystem fileSystem, string path, byte[] bytes)
    {
        using var file = fileSystem.Open(path, StorageFileMode.Buffered);
        file.SetLength(bytes.Length);
        file.Write(0, bytes);
        file.Flush();
    }

    public static void Truncate(MemoryFileSystem fileSystem, string path, long length)
    {
        using var file = fileSystem.Open(path, StorageFileMode.Buffered);
        file.SetLength(length);
        file.Flush();
    }

    /// <summary>
    /// The records of a journal file that was written from its start by one environment: each begins where the
    /// last ended with the journal magic and carries the next transaction id.
    /// </summary>
    public static List<(long Offset, long TransactionId, long TotalLength, int HeaderLength, int Alignment)> Records(byte[] file)
    {
        var records = new List<(long Offset, long TransactionId, long TotalLength, int HeaderLength, int Alignment)>();
        long offset = 0;
        while (offset + JournalRecordHeader.Size <= file.Length)
        {
            var header = MemoryMarshal.Read<JournalRecordHeader>(file.AsSpan((int)offset));
            if (header.Magic != JournalRecordHeader.MagicValue || header.TotalLength <= 0) break;
            if (records.Count > 0 && header.TransactionId != records[^1].TransactionId + 1) break;
            records.Add((offset, header.TransactionId, header.TotalLength, header.HeaderLength, header.RecordAlignment));
            offset += header.TotalLength;
        }
        return records;
    }

    /// <summary>
    /// Flips <paramref name="count"/> random bits of the record that its checksum covers: the header and page
    /// table, and the pages (not the zero padding between them).
    /// </summary>
    public static void FlipCoveredBits(byte[] file, (long Offset, long TransactionId, long TotalLength, int HeaderLength, int Alignment) record, int count, Random random)
    {
        long payloadStart = JournalRecordHeader.AlignUp(record.HeaderLength, record.Alignment);
        long covered = record.HeaderLength + (record.TotalLength - payloadStart);
        for (int i = 0; i < count; i++)
        {
            long position = random.NextInt64(covered);
            long at = record.Offset + (position < record.HeaderLength ? position : payloadStart + position - record.HeaderLength);
            file[at] ^= (byte)(1 << random.Next(8));
        }
    }

    /// <summary>
    /// Sets a record's count of the records before it in its write (<see cref="JournalRecordHeader.GroupIndex"/>)
    /// and its checksum to match, over what the checksum covers: the header and table (checksum field as zero) and
    /// the pages after the padding.
    /// </summary>
    public static void Regroup(byte[] file, (long Offset, long TransactionId, long TotalLength, int HeaderLength, int Alignment) record, int groupIndex)
    {
        var span = file.AsSpan((int)record.Offset, (int)record.TotalLength);
        int checksumAt = (int)Marshal.OffsetOf<JournalRecordHeader>(nameof(JournalRecordHeader.Checksum));
        MemoryMarshal.Write(span[(int)Marshal.OffsetOf<JournalRecordHeader>(nameof(JournalRecordHeader.GroupIndex))..], groupIndex);
        MemoryMarshal.Write(span[checksumAt..], 0u);
        int payloadStart = (int)JournalRecordHeader.AlignUp(record.HeaderLength, record.Alignment);
        uint crc = Common.Crc32C.Append(Common.Crc32C.Start, span[..record.HeaderLength]);
        MemoryMarshal.Write(span[checksumAt..], Common.Crc32C.Finish(Common.Crc32C.Append(crc, span[payloadStart..])));
    }
}
