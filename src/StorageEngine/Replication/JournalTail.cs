using System.Runtime.InteropServices;
using StorageEngine.Common;
using StorageEngine.Journal;
using StorageEngine.Platform;

namespace StorageEngine.Replication;

/// <summary>
/// Follows the journal of a running environment, record by record, for journal shipping. Records of one
/// session are contiguous: each follows the previous one in its file, or starts the next file. A file may
/// hold, after its records, stale ones left from an earlier use of the file (older transactions), and
/// records of earlier sessions never count. The tail only looks for a transaction once it is published, so
/// the record it reads is complete.
/// </summary>
internal sealed class JournalTail : IDisposable
{
    private readonly IFileSystem _fileSystem;
    private readonly string _directory;
    private readonly long _environmentId;
    private readonly long _sessionId;
    private readonly int _pageSize;
    private IStorageFile? _file;
    private long _openFileNumber = -1;

    public JournalTail(IFileSystem fileSystem, string directory, long environmentId, long sessionId, int pageSize)
    {
        _fileSystem = fileSystem;
        _directory = directory;
        _environmentId = environmentId;
        _sessionId = sessionId;
        _pageSize = pageSize;
    }

    /// <summary>The file the next record is looked for in; files before it are no longer needed.</summary>
    public long FileNumber { get; private set; }

    /// <summary>Offset in <see cref="FileNumber"/> where the next record is looked for.</summary>
    public long Offset { get; private set; }

    /// <summary>
    /// Places the tail at the start of the file that holds <paramref name="transactionId"/> (or, when that
    /// transaction is the next to commit, where its record will be written). Call with the journal's files
    /// protected from retirement.
    /// </summary>
    /// <param name="transactionId">The first transaction to ship.</param>
    /// <param name="publishedId">The last published transaction.</param>
    /// <param name="publishedFile">The journal file of the last published transaction's record (the writer's file then).</param>
    /// <exception cref="ReplicationException">The journal no longer holds <paramref name="transactionId"/>.</exception>
    public void Locate(long transactionId, long publishedId, long publishedFile)
    {
        var numbers = new List<long>();
        foreach (var name in _fileSystem.ListFiles(_directory))
            if (JournalFileNames.TryParse(name, out long n) && n <= publishedFile) numbers.Add(n);
        numbers.Sort();
        long best = -1, lastFirst = long.MinValue, oldest = -1;
        foreach (long number in numbers)
        {
            var record = TryRead(number, 0);
            // A file whose first record is not newer than the previous file's is stale (reused, not yet rewritten).
            if (record is null || record.TransactionId <= lastFirst) continue;
            lastFirst = record.TransactionId;
            if (oldest < 0) oldest = lastFirst;
            if (lastFirst > transactionId) break;
            best = number;
        }
        if (best < 0)
        {
            if (transactionId != publishedId + 1)
            {
                throw new ReplicationException(
                    $"The journal no longer holds transaction {transactionId} ({(oldest < 0 ? "it holds no record before the next commit" : $"its oldest record is transaction {oldest}")}): " +
                    "checkpoints have recycled it. Take a full backup (BackupAsync), restore it on the replica, and ship from its transaction id.", requiresFullBackup: true);
            }
            best = publishedFile;
        }
        FileNumber = best;
        Offset = 0;
    }

    /// <summary>
    /// The record of <paramref name="transactionId"/>, which must be published, and the tail moved past it.
    /// Records of earlier transactions on the way are passed to <paramref name="skipped"/>.
    /// </summary>
    /// <param name="transactionId">The transaction wanted.</param>
    /// <param name="lastFile">The journal file of the last published record: the wanted one is in no later file.</param>
    /// <param name="skipped">Told of each earlier record passed over.</param>
    /// <exception cref="CorruptionException">The record is missing or out of order: the journal is damaged.</exception>
    public JournalRecord Next(long transactionId, long lastFile, Action<JournalRecord>? skipped)
    {
        while (true)
        {
            var record = TryRead(FileNumber, Offset);
            if (record is not null)
            {
                long id = record.TransactionId;
                if (id == transactionId)
                {
                    Offset += record.TotalLength;
                    return record;
                }
                if (id < transactionId)
                {
                    Offset += record.TotalLength;
                    skipped?.Invoke(record);
                    continue;
                }
                throw new CorruptionException(PathOf(FileNumber), Offset, $"journal record of transaction {id} where transaction {transactionId} was expected (a gap in the journal).");
            }
            if (FileNumber >= lastFile)
                throw new CorruptionException(PathOf(FileNumber), Offset, $"the journal record of committed transaction {transactionId} is missing.");
            FileNumber++;
            Offset = 0;
        }
    }

    private string PathOf(long number) => Path.Combine(_directory, JournalFileNames.ForNumber(number));

    /// <summary>The intact record of this session at the offset, or null.</summary>
    private JournalRecord? TryRead(long fileNumber, long offset)
    {
        var file = Open(fileNumber);
        return file is null ? null : JournalRecord.TryRead(file, fileNumber, offset, _pageSize, _environmentId, _sessionId);
    }

    private IStorageFile? Open(long fileNumber)
    {
        if (_openFileNumber == fileNumber && _file is not null) return _file;
        _file?.Dispose();
        _file = null;
        _openFileNumber = -1;
        string path = PathOf(fileNumber);
        // Only an existing file: one the writer has not made yet must stay missing, and one a checkpoint retired
        // since must not come back empty.
        try
        {
            _file = _fileSystem.Open(path, StorageFileMode.Buffered | StorageFileMode.Existing);
        }
        catch (FileNotFoundException)
        {
            return null;
        }
        _openFileNumber = fileNumber;
        return _file;
    }

    public void Dispose()
    {
        _file?.Dispose();
        _file = null;
    }
}
