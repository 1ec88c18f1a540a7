using System.Buffers.Binary;
using Microsoft.Extensions.Logging;
using StorageEngine.Common;
using StorageEngine.Platform;

namespace StorageEngine.Journal;

/// <summary>
/// Appends one record per commit to the current journal file, a group of commits with a single vectored write. In durable mode
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
    // Taken by SyncBuffered and by the file switch, so that a sync never meets a file being closed.
    private readonly object _syncLock = new();
    private readonly Queue<string> _freeFiles = new();
    private readonly List<ReadOnlyMemory<byte>> _buffers = new();
    private readonly List<NativeBuffer> _headers = new();
    private IStorageFile? _file;
    // The current file's length, fixed once it is preallocated: asking the file each time costs a system call.
    private long _fileLength;
    private long _offset;
    private long _freeCounter;
    private bool _warnedBuffered;

    /// <summary>A writer that appends from file <paramref name="firstFileNumber"/> on.</summary>
    /// <remarks>
    /// With openLater the first file is opened (a spare renamed, or a new one preallocated) not now but at
    /// <see cref="OpenFirstFile"/> or the first append: after a recovery that finishes in the background, an
    /// open does not wait for it.
    /// </remarks>
    public JournalWriter(IFileSystem fileSystem, string directory, long environmentId, long sessionId, int pageSize, long fileSize,
        bool durable, long firstFileNumber, ILogger logger, bool openLater = false)
    {
        _sessionId = sessionId;
        _fileSystem = fileSystem;
        _directory = directory;
        _environmentId = environmentId;
        _pageSize = pageSize;
        _fileSize = JournalRecordHeader.AlignUp(fileSize);
        _durable = durable;
        _logger = logger;
        foreach (var name in fileSystem.ListFiles(directory))
        {
            if (JournalFileNames.IsFree(name)) _freeFiles.Enqueue(Path.Combine(directory, name));
        }
        _freeCounter = DateTime.UtcNow.Ticks;
        CurrentFileNumber = firstFileNumber;
        if (!openLater) OpenFirstFile();
    }

    /// <summary>Opens the first file if the constructor was told to leave it (a spare is renamed, or a new file preallocated).</summary>
    public void OpenFirstFile()
    {
        if (_file is not null) return;
        _file = OpenFile(CurrentFileNumber, _fileSize);
        _fileLength = _file.Length;
    }

    /// <summary>Number of the file records are appended to.</summary>
    public long CurrentFileNumber { get; private set; }

    /// <summary>Bytes written since this writer was created.</summary>
    public long BytesWritten { get; private set; }

    /// <summary>Journal writes since this writer was created (a commit group takes one).</summary>
    public long WriteCount { get; private set; }

    /// <summary>Records written since this writer was created (one per commit).</summary>
    public long RecordCount { get; private set; }

    /// <summary>
    /// Writes consecutive records (a commit group) with one vectored write, all into the same file, and
    /// returns where the last one ends. When this throws, nothing counts as written.
    /// </summary>
    public JournalPosition Append(IReadOnlyList<JournalEntry> entries)
    {
        if (entries.Count == 0) throw new ArgumentException("A journal write needs at least one record.", nameof(entries));
        long total = 0;
        for (int e = 0; e < entries.Count; e++) total += RecordLength(entries[e]);
        OpenFirstFile();
        if (_offset + total > _fileLength) SwitchFile(total);

        _buffers.Clear();
        for (int e = 0; e < entries.Count; e++) AddRecord(e, entries[e]);
        _file!.Write(_offset, _buffers);
        if (_durable && !_file.IsWriteThrough) _file.Flush();
        _offset += total;
        BytesWritten += total;
        WriteCount++;
        RecordCount += entries.Count;
        return new JournalPosition(CurrentFileNumber, _offset);
    }

    /// <summary>Header, run table and diffs, before padding.</summary>
    private static int HeaderLength(in JournalEntry entry)
    {
        long length = JournalRecordHeader.HeaderLengthFor(entry.Runs.Count);
        foreach (var run in entry.Runs) length += run.IsDiff ? run.Diff.Length : 0;
        return checked((int)length);
    }

    private long RecordLength(in JournalEntry entry)
    {
        long total = JournalRecordHeader.AlignUp(HeaderLength(entry));
        foreach (var run in entry.Runs) total += run.IsDiff ? 0 : (long)run.PageCount * _pageSize;
        return total;
    }

    /// <summary>
    /// Fills the header blocks of the <paramref name="index"/>-th record of the write (header, run table and
    /// diffs) and queues them and its full images.
    /// </summary>
    private void AddRecord(int index, in JournalEntry entry)
    {
        var runs = entry.Runs;
        int headerLength = HeaderLength(entry);
        int headerBlocks = (int)JournalRecordHeader.AlignUp(headerLength);
        while (_headers.Count <= index) _headers.Add(new NativeBuffer(JournalRecordHeader.BlockSize));
        if (_headers[index].Length < headerBlocks)
        {
            _headers[index].Free();
            _headers[index] = new NativeBuffer(headerBlocks);
        }

        byte* h = _headers[index].Pointer;
        var block = new Span<byte>(h, headerBlocks);
        block.Clear();
        var header = (JournalRecordHeader*)h;
        header->Magic = JournalRecordHeader.MagicValue;
        header->EnvironmentId = _environmentId;
        header->SessionId = _sessionId;
        header->TransactionId = entry.TransactionId;
        header->RunCount = runs.Count;
        header->PageSize = _pageSize;
        header->TotalLength = RecordLength(entry);
        header->HeaderLength = headerLength;
        entry.State.Span.CopyTo(new Span<byte>(header->State, JournalRecordHeader.StateSize));
        int diffAt = JournalRecordHeader.HeaderLengthFor(runs.Count);
        for (int i = 0; i < runs.Count; i++)
        {
            var run = runs[i];
            var slot = block.Slice(JournalRecordHeader.Size + i * JournalRecordHeader.RunEntrySize, JournalRecordHeader.RunEntrySize);
            BinaryPrimitives.WriteInt64LittleEndian(slot, run.FirstPage);
            BinaryPrimitives.WriteInt32LittleEndian(slot[8..], run.PageCount);
            BinaryPrimitives.WriteInt32LittleEndian(slot[12..], run.IsDiff ? run.Diff.Length : 0);
            BinaryPrimitives.WriteInt64LittleEndian(slot[16..], run.BasePage);
            if (!run.IsDiff) continue;
            run.Diff.Span.CopyTo(block[diffAt..]);
            diffAt += run.Diff.Length;
        }
        uint crc = Crc32C.Append(Crc32C.Start, block[..headerLength]);
        _buffers.Add(_headers[index].Memory[..headerBlocks]);
        foreach (var run in runs)
        {
            if (run.IsDiff) continue;
            crc = Crc32C.Append(crc, run.Data.Span);
            _buffers.Add(run.Data);
        }
        header->Checksum = Crc32C.Finish(crc);
    }

    private void SwitchFile(long recordLength)
    {
        long size = Math.Max(_fileSize, JournalRecordHeader.AlignUp(recordLength));
        var next = OpenFile(CurrentFileNumber + 1, size);
        lock (_syncLock)
        {
            var old = _file!;
            _file = next;
            _fileLength = next.Length;
            _offset = 0;
            CurrentFileNumber++;
            if (!_durable) old.Flush();
            old.Dispose();
        }
    }

    /// <summary>
    /// Makes every record appended so far durable, for a buffered (Lazy) journal; a write-through one already
    /// is. Called before pages go into the data file, which must never hold a page version newer than the
    /// durable journal: recovery replays in-place diffs onto whatever version the data file holds.
    /// </summary>
    public void SyncBuffered()
    {
        if (_durable) return;
        lock (_syncLock) _file?.Flush();
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
        try
        {
            using var file = _fileSystem.Open(path, StorageFileMode.Buffered);
            file.Preallocate(_fileSize);
        }
        catch
        {
            // A full disk makes every retry fail: leave no half-preallocated file behind each time.
            try
            {
                _fileSystem.Delete(path);
            }
            catch (IOException)
            {
            }

            throw;
        }

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
                RecycleOrDelete(name, MaxFreeFiles);
                retired++;
            }
        }
        return retired;
    }

    /// <summary>
    /// On a clean close, once the header points past every journal file: closes the current file and keeps a
    /// single file for the next session to reuse (it would otherwise preallocate one), deleting the others, so
    /// that a closed environment takes little more disk than its data file.
    /// </summary>
    public void RetireAllOnClose()
    {
        lock (_syncLock)
        {
            _file?.Dispose();
            _file = null;
        }
        lock (_filesLock)
        {
            foreach (var name in _fileSystem.ListFiles(_directory))
            {
                if (JournalFileNames.TryParse(name, out long number) && number <= CurrentFileNumber) RecycleOrDelete(name, 1);
            }
            while (_freeFiles.Count > 1) _fileSystem.Delete(_freeFiles.Dequeue());
        }
    }

    /// <summary>Renames a retired file to a free one while fewer than <paramref name="keep"/> wait, else deletes it. Under the files lock.</summary>
    private void RecycleOrDelete(string name, int keep)
    {
        string path = Path.Combine(_directory, name);
        if (_freeFiles.Count < keep)
        {
            string free = Path.Combine(_directory, JournalFileNames.Free(Interlocked.Increment(ref _freeCounter)));
            _fileSystem.Rename(path, free);
            _freeFiles.Enqueue(free);
        }
        else
        {
            _fileSystem.Delete(path);
        }
    }

    public void Dispose()
    {
        _file?.Dispose();
        foreach (var header in _headers) header.Free();
        _headers.Clear();
    }
}
