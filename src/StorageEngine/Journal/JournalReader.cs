using System.Runtime.InteropServices;
using StorageEngine.Common;
using StorageEngine.Platform;

namespace StorageEngine.Journal;

/// <summary>
/// Reads the journal back for recovery: records in transaction order from a starting file, stopping at the
/// first torn or stale record. An intact record out of its place (a gap in transaction ids, an intact record
/// of a later write after a damaged one, a record of another environment) is corruption; intact records of the
/// damaged one's own write are not (see <see cref="InTornWrite"/>).
/// </summary>
internal sealed class JournalReader
{
    private const int ScanChunkSize = 1 << 20;
    private readonly IFileSystem _fileSystem;
    private readonly string _directory;
    private readonly long _environmentId;
    private readonly long _sessionId;
    private readonly bool _lazySession;
    private readonly int _pageSize;
    // The journal files as first listed (see FileNumbers).
    private List<long>? _fileNumbers;

    /// <param name="fileSystem">Where the journal files are.</param>
    /// <param name="directory">The environment's directory.</param>
    /// <param name="environmentId">The data file's environment id; a record with another is corruption.</param>
    /// <param name="sessionId">Only records of this session (the one the checkpoint header names) are replayed.</param>
    /// <param name="lazySession">
    /// The session did not sync its journal: after a power loss a damaged record may be followed by intact
    /// ones that the device happened to keep, so the journal simply ends at the first damaged record.
    /// </param>
    /// <param name="pageSize">The data file's page size.</param>
    public JournalReader(IFileSystem fileSystem, string directory, long environmentId, long sessionId, bool lazySession, int pageSize)
    {
        _sessionId = sessionId;
        _lazySession = lazySession;
        _fileSystem = fileSystem;
        _directory = directory;
        _environmentId = environmentId;
        _pageSize = pageSize;
    }

    /// <summary>
    /// Journal file numbers present in the directory, ascending, as listed by this reader's first call: a replay
    /// creates and deletes no journal file, so the open that replayed and then asks for the last number lists the
    /// directory once.
    /// </summary>
    public IReadOnlyList<long> FileNumbers()
    {
        if (_fileNumbers is { } listed) return listed;
        var numbers = new List<long>();
        foreach (var name in _fileSystem.ListFiles(_directory))
            if (JournalFileNames.TryParse(name, out long n)) numbers.Add(n);
        numbers.Sort();
        return _fileNumbers = numbers;
    }

    /// <summary>True once <see cref="Replay"/> found an intact record of the session in the file it started from.</summary>
    public bool StartFileHeldRecord { get; private set; }

    /// <summary>
    /// Calls <paramref name="apply"/> for every record after <paramref name="afterTransactionId"/>, in order,
    /// starting in file <paramref name="startFileNumber"/>. Returns the last transaction id applied.
    /// </summary>
    public long Replay(long startFileNumber, long afterTransactionId, Action<JournalRecord> apply)
    {
        var files = FileNumbers().Where(n => n >= startFileNumber).ToList();
        long expected = afterTransactionId + 1;
        for (int f = 0; f < files.Count; f++)
        {
            string path = PathOf(files[f]);
            using var file = _fileSystem.Open(path, StorageFileMode.Buffered);
            long offset = 0;
            bool appliedHere = false;
            // The last checkpointed record skipped in the start file (0: none yet).
            long skipped = 0;
            while (true)
            {
                var record = TryRead(file, files[f], offset);
                if (record is null) break;
                if (files[f] == startFileNumber) StartFileHeldRecord = true;
                long id = record.TransactionId;
                if (id < expected)
                {
                    // Records the checkpoint already holds precede ours in the file it starts from, consecutive from
                    // its first; anything else older is what a reused file left behind: the end of this file's data.
                    // Skipped, such a record (where a torn group write did not land its first record) led on to an
                    // intact later member of that group, read as a gap in the journal instead of a torn tail.
                    if (files[f] == startFileNumber && !appliedHere && id <= afterTransactionId && (skipped == 0 || id == skipped + 1))
                    {
                        skipped = id;
                        offset += record.TotalLength;
                        continue;
                    }
                    break;
                }
                if (id > expected)
                    throw new CorruptionException(path, offset, $"journal record of transaction {id} where transaction {expected} was expected (a gap in the journal).");
                apply(record);
                expected++;
                offset += record.TotalLength;
                appliedHere = true;
            }
            // The next file must start with the next transaction, or the journal ends here.
            if (f + 1 < files.Count && StartsWith(files[f + 1], expected)) continue;
            if (!_lazySession) EnsureNothingLater(files, f, offset, expected);
            break;
        }
        return expected - 1;
    }

    private bool StartsWith(long fileNumber, long transactionId)
    {
        using var file = _fileSystem.Open(PathOf(fileNumber), StorageFileMode.Buffered);
        return TryRead(file, fileNumber, 0)?.TransactionId == transactionId;
    }

    /// <summary>
    /// Where the journal ended at a damaged record, an intact record of a later write further on means the damage
    /// is not a torn tail but corruption of a committed record.
    /// </summary>
    private void EnsureNothingLater(List<long> files, int fileIndex, long offset, long expected)
    {
        for (int f = fileIndex; f < files.Count; f++)
        {
            string path = PathOf(files[f]);
            using var file = _fileSystem.Open(path, StorageFileMode.Buffered);
            long length = file.Length;
            var chunk = new byte[ScanChunkSize];
            // Read in large chunks and look closer only where a block starts with the record magic (only an
            // unbuffered journal is scanned, and its records start on 4 KB boundaries).
            for (long start = f == fileIndex ? offset + JournalRecordHeader.BlockSize : 0; start < length; start += ScanChunkSize)
            {
                int read = file.Read(start, chunk);
                for (int i = 0; i + JournalRecordHeader.BlockSize <= read; i += JournalRecordHeader.BlockSize)
                {
                    if (!JournalRecordHeader.IsReadable(MemoryMarshal.Read<ulong>(chunk.AsSpan(i)))) continue;
                    // A reused file is full of older records, some of them megabytes long: only one that claims to
                    // be this session's, at or past the damaged transaction, or another environment's, is worth
                    // reading and checksumming whole (a damaged header fails that checksum anyway).
                    var header = MemoryMarshal.Read<JournalRecordHeader>(chunk.AsSpan(i));
                    bool worthReading = header.Names(_environmentId, _sessionId) ? header.TransactionId >= expected : header.EnvironmentId != _environmentId;
                    if (!worthReading) continue;
                    long at = start + i;
                    var record = TryRead(file, files[f], at);
                    if (record is null || record.TransactionId < expected || InTornWrite(record, expected)) continue;
                    var (damagedPath, damagedAt) = DamagedRecordLocation(files, fileIndex, offset, expected);
                    throw new CorruptionException(damagedPath, damagedAt,
                        $"the journal record of transaction {expected} is damaged, but the record of transaction {record.TransactionId} follows intact at offset {at} of '{path}'.");
                }
            }
        }
    }

    /// <summary>
    /// True when <paramref name="record"/>, intact, came in the same journal write as the damaged record of
    /// transaction <paramref name="expected"/>: a commit group whose write was cut short. None of its commits was
    /// acknowledged (each waits for the whole write), and a device may keep any of the write's blocks, so a later
    /// member can survive an earlier one; the journal then ends where the damage is, as after a torn single record.
    /// The unit of atomicity is the write: its transactions are consecutive, so the write holds
    /// <paramref name="expected"/> when it began at or before it.
    /// </summary>
    private static bool InTornWrite(JournalRecord record, long expected)
    {
        int index = record.GroupIndex;
        return record.TransactionId > expected && index > 0 && record.TransactionId - index <= expected;
    }

    /// <summary>
    /// Where the damaged record of transaction <paramref name="expected"/> lies: where the last intact one ended
    /// (<paramref name="offset"/> in file <paramref name="fileIndex"/>), or at the start of the next file, where the
    /// writer puts a record that did not fit. The block that still names this session and transaction decides; where
    /// neither does (the damage is in the header itself), the end of the intact records is named.
    /// </summary>
    private (string Path, long Offset) DamagedRecordLocation(List<long> files, int fileIndex, long offset, long expected)
    {
        if (HeaderClaims(files[fileIndex], offset, expected) || fileIndex + 1 >= files.Count || !HeaderClaims(files[fileIndex + 1], 0, expected))
            return (PathOf(files[fileIndex]), offset);
        return (PathOf(files[fileIndex + 1]), 0);
    }

    /// <summary>True when the block at <paramref name="offset"/> starts a record header of this session's transaction <paramref name="transactionId"/>, intact or not.</summary>
    private bool HeaderClaims(long fileNumber, long offset, long transactionId)
    {
        using var file = _fileSystem.Open(PathOf(fileNumber), StorageFileMode.Buffered);
        Span<byte> block = stackalloc byte[JournalRecordHeader.Size];
        if (offset + block.Length > file.Length || file.Read(offset, block) < block.Length) return false;
        var header = MemoryMarshal.Read<JournalRecordHeader>(block);
        return header.Names(_environmentId, _sessionId) && header.TransactionId == transactionId;
    }

    private string PathOf(long number) => Path.Combine(_directory, JournalFileNames.ForNumber(number));

    /// <summary>The record at <paramref name="offset"/>, or null when there is no intact record of this environment.</summary>
    private JournalRecord? TryRead(IStorageFile file, long fileNumber, long offset) =>
        JournalRecord.TryRead(file, fileNumber, offset, _pageSize, _environmentId, _sessionId);
}
