using System.Buffers.Binary;
using StorageEngine.Common;
using StorageEngine.Journal;
using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// A buffered (Lazy) journal packs its records to 64 bytes instead of whole 4 KB blocks; recovery reads them
/// wherever they fall, up to the last bytes of a file, and still replays the 4 KB records of format 2 that a
/// crashed session of the previous version left.
/// </summary>
public sealed class JournalRecordAlignmentTests
{
    // Enough files that one ends on a small record (larger records move to the next file whole); the layout is
    // deterministic, and 1,500 stopped sufficing once freed pages were reused between checkpoints.
    private const long Transactions = 2_000;

    [Fact]
    public void A_lazy_journal_packs_its_records_and_a_process_crash_loses_none_of_them_across_file_switches()
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem, DurabilityMode.Lazy, journalFileSize: 1 << 20);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, Transactions);

        var files = JournalFiles.InUse(fileSystem.ListFiles("/db"), "/db");
        Assert.True(files.Count >= 3, $"{files.Count} journal files: the commits should have switched files");
        // Some file's last record starts in its last 4 KB: a reader that wants a whole block for a header misses it.
        bool endsInLastBlock = false;
        foreach (string path in files.SkipLast(1))
        {
            var file = JournalFiles.Read(fileSystem, path);
            var records = JournalFiles.Records(file);
            Assert.All(records, record => Assert.Equal(JournalRecordHeader.PackedAlignment, record.Alignment));
            Assert.Contains(records, record => record.Offset % JournalRecordHeader.BlockSize != 0);
            endsInLastBlock |= records[^1].Offset > file.Length - JournalRecordHeader.BlockSize;
        }
        Assert.True(endsInLastBlock, "no journal file ends with a record in its last block");

        environment.SimulateCrash();
        fileSystem.SimulateProcessCrash();
        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, Transactions);
        AssertHealthy(reopened);
    }

    [Fact]
    public void Records_of_format_two_left_by_a_crash_are_replayed()
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 40);
        environment.SimulateCrash();
        fileSystem.SimulateProcessCrash();

        int rewritten = 0;
        foreach (string journal in JournalFiles.InUse(fileSystem.ListFiles("/db"), "/db"))
        {
            var bytes = JournalFiles.Read(fileSystem, journal);
            foreach (var record in JournalFiles.Records(bytes))
            {
                RewriteAsFormatTwo(bytes, record.Offset, record.TotalLength, record.HeaderLength);
                rewritten++;
            }
            JournalFiles.Write(fileSystem, journal, bytes);
        }
        Assert.Equal(40, rewritten);

        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, 40);
        AssertHealthy(reopened);
    }

    /// <summary>What the previous version wrote for the same record: its magic, no alignment field, its checksum.</summary>
    private static void RewriteAsFormatTwo(byte[] file, long offset, long totalLength, int headerLength)
    {
        var record = file.AsSpan((int)offset, (int)totalLength);
        BinaryPrimitives.WriteUInt64LittleEndian(record, JournalRecordHeader.FormatTwoMagic);
        BinaryPrimitives.WriteInt32LittleEndian(record[56..], 0);
        BinaryPrimitives.WriteUInt32LittleEndian(record[44..], 0);
        uint crc = Crc32C.Append(Crc32C.Start, record[..headerLength]);
        crc = Crc32C.Append(crc, record[(int)JournalRecordHeader.AlignUp(headerLength)..]);
        BinaryPrimitives.WriteUInt32LittleEndian(record[44..], Crc32C.Finish(crc));
    }
}
