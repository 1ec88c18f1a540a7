using Microsoft.Extensions.Logging;
using StorageEngine.Common;
using StorageEngine.Platform;

namespace StorageEngine.Journal;

/// <summary>
/// Appends one record per commit to the current journal file with a single vectored write. In durable mode
/// the file is unbuffered and write-through, so the record is on the device when the write returns; where
/// the file system refuses that, the writer syncs after each record. Full files are retired by the
/// checkpointer and reused, so the journal does not grow without bound.
/// </summary>
internal sealed unsafe class JournalWriter : IDisposable
{
    /// <summary>Free files kept for reuse beyond which retired files are deleted.</summary>
    private const int MaxFreeFiles = 4;

    private readonly IFileSystem _fileSystem;
    private readonly string _directory;
    private readonly long _environmentId;
    private readonly long _sessionId;
    private readonly int _pageSize;
    private readonly long _fileSize;
    private readonly bool _durable;
    private readonly ILogger _logger;
    private readonly object _filesLock = new();
    private readonly Queue<string> _freeFiles = new();
    private readonly List<ReadOnlyMemory<byte>> _buffers = new();
    private NativeBuffer _header;
    private IStorageFile _file;
    private long _offset;
    private long _freeCounter;
    private bool _warnedBuffered;

    public JournalWriter(IFileSystem fileSystem, string directory, long environmentId, long sessionId, int pageSize, long fileSize,
        bool durable, long firstFileNumber, ILogger logger)
    {
        _sessionId = sessionId;
        _fileSystem = fileSystem;
        _directory = directory;
        _environmentId = environmentId;
        _pageSize = pageSize;
        _fileSize = JournalRecordHeader.AlignUp(fileSize);
        _durable = durable;
        _logger = logger;
        _header = new NativeBuffer(JournalRecordHeader.BlockSize);
        foreach (var name in fileSystem.ListFiles(directory))
        {
            if (JournalFileNames.IsFree(name)) _freeFiles.Enqueue(Path.Combine(directory, name));
        }
        _freeCounter = DateTime.UtcNow.Ticks;
        CurrentFileNumber = firstFileNumber;
        _file = OpenFile(firstFileNumber, _fileSize);
    }

    /// <summary>Number of the file records are appended to.</summary>
    public long CurrentFileNumber { get; private set; }

    /// <summary>Bytes written since this writer was created.</summary>
    public long BytesWritten { get; private set; }

    /// <summary>
    /// Writes one record and returns where it ends. When this throws, nothing counts as written: the next
    /// record goes to the same place.
    /// </summary>
    public JournalPosition Append(long transactionId, ReadOnlySpan<byte> state, IReadOnlyList<JournalPageRun> runs)
    {
        int headerLength = JournalRecordHeader.HeaderLengthFor(runs.Count);
        int headerBlocks = (int)JournalRecordHeader.AlignUp(headerLength);
        if (_header.Length < headerBlocks)
        {
            _header.Free();
            _header = new NativeBuffer(headerBlocks);
        }
        long total = headerBlocks;
        foreach (var run in runs) total += (long)run.PageCount * _pageSize;
        if (_offset + total > _file.Length) SwitchFile(total);

        byte* h = _header.Pointer;
        new Span<byte>(h, headerBlocks).Clear();
        var header = (JournalRecordHeader*)h;
        header->Magic = JournalRecordHeader.MagicValue;
        header->EnvironmentId = _environmentId;
        header->SessionId = _sessionId;
        header->TransactionId = transactionId;
        header->RunCount = runs.Count;
        header->PageSize = _pageSize;
        header->TotalLength = total;
        header->HeaderLength = headerLength;
        state.CopyTo(new Span<byte>(header->State, JournalRecordHeader.StateSize));
        byte* table = h + JournalRecordHeader.Size;
        for (int i = 0; i < runs.Count; i++)
        {
            *(long*)(table + i * JournalRecordHeader.RunEntrySize) = runs[i].FirstPage;
            *(int*)(table + i * JournalRecordHeader.RunEntrySize + 8) = runs[i].PageCount;
        }
        uint crc = Crc32C.Append(Crc32C.Start, new ReadOnlySpan<byte>(h, headerLength));
        _buffers.Clear();
        _buffers.Add(_header.Memory[..headerBlocks]);
        foreach (var run in runs)
        {
            crc = Crc32C.Append(crc, run.Data.Span);
            _buffers.Add(run.Data);
        }
        header->Checksum = Crc32C.Finish(crc);

        _file.Write(_offset, _buffers);
        if (_durable && !_file.IsWriteThrough) _file.Flush();
        _offset += total;
        BytesWritten += total;
        return new JournalPosition(CurrentFileNumber, _offset);
    }

    private void SwitchFile(long recordLength)
    {
        long size = Math.Max(_fileSize, JournalRecordHeader.AlignUp(recordLength));
        var next = OpenFile(CurrentFileNumber + 1, size);
        var old = _file;
        _file = next;
        _offset = 0;
        CurrentFileNumber++;
        if (!_durable) old.Flush();
        old.Dispose();
    }

    private IStorageFile OpenFile(long number, long size)
    {
        string path = Path.Combine(_directory, JournalFileNames.ForNumber(number));
        lock (_filesLock)
        {
            if (!_fileSystem.Exists(path) && _freeFiles.Count > 0) _fileSystem.Rename(_freeFiles.Dequeue(), path);
        }
        var file = _fileSystem.Open(path, _durable ? StorageFileMode.UnbufferedWriteThrough : StorageFileMode.Buffered);
        try
        {
            if (file.Length < size)
            {
                file.Preallocate(size);
                _logger.LogDebug("Preallocated journal file {Path} ({Size} bytes).", path, size);
            }
            if (_durable && !file.IsWriteThrough && !_warnedBuffered)
            {
                _warnedBuffered = true;
                _logger.LogWarning("The file system refuses unbuffered I/O for {Path}; the journal falls back to buffered writes and fdatasync on every commit.", path);
            }
            return file;
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Makes sure a preallocated spare file waits for the next switch, so that a commit never writes a new
    /// file's zeros itself. Called off the commit path (by the checkpointer).
    /// </summary>
    public void EnsureSpareFile()
    {
        lock (_filesLock)
        {
            if (_freeFiles.Count > 0) return;
        }
        string path = Path.Combine(_directory, JournalFileNames.Free(Interlocked.Increment(ref _freeCounter)));
        using (var file = _fileSystem.Open(path, StorageFileMode.Buffered)) file.Preallocate(_fileSize);
        lock (_filesLock) _freeFiles.Enqueue(path);
    }

    /// <summary>Retires every journal file numbered below <paramref name="fileNumber"/>: all their records are checkpointed.</summary>
    public int RetireBelow(long fileNumber)
    {
        int retired = 0;
        lock (_filesLock)
        {
            foreach (var name in _fileSystem.ListFiles(_directory))
            {
                if (!JournalFileNames.TryParse(name, out long number) || number >= fileNumber || number >= CurrentFileNumber) continue;
                string path = Path.Combine(_directory, name);
                if (_freeFiles.Count < MaxFreeFiles)
                {
                    string free = Path.Combine(_directory, JournalFileNames.Free(Interlocked.Increment(ref _freeCounter)));
                    _fileSystem.Rename(path, free);
                    _freeFiles.Enqueue(free);
                }
                else
                {
                    _fileSystem.Delete(path);
                }
                retired++;
            }
        }
        return retired;
    }

    public void Dispose()
    {
        _file.Dispose();
        _header.Free();
    }
}
