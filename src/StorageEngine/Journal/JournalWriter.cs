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
/// <remarks>
/// A durable session's first file is small (<see cref="InitialFileSize"/>, or the spare the last session left)
/// and each next one twice the last, up to the configured size: an environment that commits little keeps a journal
/// of a few hundred kilobytes, one that commits much reaches full-size files after a few switches. A durable file
/// is preallocated with zeros (written, so that later write-through writes change no metadata), by the
/// checkpointer thread ahead of the switch that needs it.
/// A durable write of at least <see cref="LargeWrite"/> does without: the file system's metadata update on
/// extending the file costs little beside the write itself, and writing zeros first would double what such
/// commits write. A buffered (Lazy) journal, whose writes never wait for the device, has full-size sparse files
/// from the start: set to their length without writing anything, so that appends do not move the file's end.
/// </remarks>
internal sealed unsafe partial class JournalWriter : IDisposable
{
    /// <summary>Free files kept for reuse beyond which retired files are deleted.</summary>
    private const int MaxFreeFiles = 4;

    /// <summary>Size of a durable session's first journal file, and the least a clean close leaves behind.</summary>
    /// <remarks>
    /// Its zeros are written when the session starts, on the first commit's path: creating an environment and
    /// committing once (the document store's create) took 2.60-2.75 ms with a 1 MiB first file and 1.94-2.08 ms with
    /// this one (medians of 41, three alternated runs, 2026-11-28), the 1 MiB write-through write alone 0.87 ms.
    /// The next files double from here, their zeros written by the checkpointer thread.
    /// </remarks>
    public const long InitialFileSize = 64L << 10;

    /// <summary>Most zeros a commit writes itself when it switches files and the checkpointer has no spare ready.</summary>
    private const long MaxPreallocationOnCommit = 1L << 20;

    /// <summary>Size from which a durable write may extend a file rather than need preallocated space.</summary>
    public const long LargeWrite = 1L << 20;

    private readonly IFileSystem _fileSystem;
    private readonly string _directory;
    private readonly long _environmentId;
    private readonly long _sessionId;
    private readonly int _pageSize;
    private readonly long _maxFileSize;
    private readonly bool _durable;
    // Records of an unbuffered journal fill whole blocks; a buffered one packs them (see JournalRecordHeader).
    private readonly int _alignment;
    private readonly ILogger _logger;
    private readonly object _filesLock = new();
    // Taken by SyncBuffered and by the file switch, so that a sync never meets a file being closed.
    private readonly object _syncLock = new();
    // Oldest first; each with its length, so that a switch takes one big enough and the checkpointer grows the
    // largest when none is. Null until first needed (see FreeFiles).
    private List<SpareJournalFile>? _freeFilesListed;
    private readonly List<ReadOnlyMemory<byte>> _buffers = new();
    // Buffered (Lazy) files switched away from, synced by the next SyncBuffered rather than by the commit that
    // switched: a Lazy commit never waits for the device. Under _syncLock.
    private readonly List<IStorageFile> _unsyncedFiles = new();
    private readonly List<NativeBuffer> _headers = new();
    private IStorageFile? _file;
    // The current file's capacity, fixed when it is opened: asking the file each time costs a system call.
    private long _fileLength;
    // How much of the current file is written (zeros or records): a small durable write must end within it.
    private long _writtenLength;
    // Size of the files being written now; the next switch doubles it, up to _maxFileSize.
    private long _generationSize;
    private volatile bool _spareWanted;
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
        _maxFileSize = JournalRecordHeader.AlignUp(fileSize);
        // A buffered journal's files are sparse (nothing written but records), so they need not start small.
        _generationSize = durable ? Math.Min(_maxFileSize, InitialFileSize) : _maxFileSize;
        _durable = durable;
        _alignment = durable ? JournalRecordHeader.BlockSize : JournalRecordHeader.PackedAlignment;
        _logger = logger;
        _freeCounter = DateTime.UtcNow.Ticks;
        CurrentFileNumber = firstFileNumber;
        if (!openLater) OpenFirstFile();
    }

    /// <summary>Opens the first file if the constructor was told to leave it (a spare is renamed, or a new file preallocated).</summary>
    public void OpenFirstFile()
    {
        if (_file is not null) return;
        (_file, _fileLength, _writtenLength) = OpenFile(CurrentFileNumber, _generationSize, _generationSize, preallocate: _durable);
        // A larger file left by the last session (see RetireAllOnClose) sets the size to go on from.
        _generationSize = Math.Max(_generationSize, Math.Min(_maxFileSize, _fileLength));
        _spareWanted = _durable;
    }

    /// <summary>
    /// True when a durable journal has no spare file as large as its next switch will want and the current file is
    /// half written: the owner should have <see cref="EnsureSpareFile"/> run soon, off the commit path.
    /// </summary>
    /// <remarks>
    /// Half written rather than at once, so that a session that writes little never writes a spare's zeros: asked for
    /// at the first commit, they set two megabytes of zeros going after a new environment's first commit, and a close
    /// right after it waited for them (6.2 against 0.8 ms, Native AOT, 2026-11-28).
    /// </remarks>
    public bool SpareWanted => _spareWanted && _offset >= _fileLength / 2;

    /// <summary>True when a returned append is on the device (Safe mode), false for a buffered (Lazy) journal.</summary>
    public bool IsDurable => _durable;

    /// <summary>Size the next switch asks for: twice the current files, at most the configured size.</summary>
    private long NextGenerationSize => Math.Min(_maxFileSize, 2 * _generationSize);

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
        bool large = total >= LargeWrite || !_durable;
        if (_offset + total > (large ? _fileLength : _writtenLength)) SwitchFile(total, large);

        _buffers.Clear();
        for (int e = 0; e < entries.Count; e++) AddRecord(e, entries[e]);
        _file!.Write(_offset, _buffers);
        if (_durable && !_file.IsWriteThrough) _file.Flush();
        _offset += total;
        if (_offset > _writtenLength) _writtenLength = _offset;
        BytesWritten += total;
        WriteCount++;
        RecordCount += entries.Count;
        return new JournalPosition(CurrentFileNumber, _offset);
    }

    /// <summary>Header, run table and diffs, before padding.</summary>
    private static int HeaderLength(in JournalEntry entry)
    {
        var runs = entry.Runs;
        long length = JournalRecordHeader.HeaderLengthFor(runs.Count);
        // Indexed rather than foreach: enumerating the interface would allocate an enumerator per record.
        for (int i = 0; i < runs.Count; i++) length += runs[i].IsDiff ? runs[i].Diff.Length : 0;
        return checked((int)length);
    }

    private long RecordLength(in JournalEntry entry)
    {
        long total = JournalRecordHeader.AlignUp(HeaderLength(entry), _alignment);
        var runs = entry.Runs;
        for (int i = 0; i < runs.Count; i++) total += runs[i].IsDiff ? 0 : (long)runs[i].PageCount * _pageSize;
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
        int headerBlocks = (int)JournalRecordHeader.AlignUp(headerLength, _alignment);
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
        header->Alignment = _alignment;
        header->GroupIndex = index;
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
            if (run.IsInPlace) header->Magic = JournalRecordHeader.FormatFourMagic;
            if (!run.IsDiff) continue;
            run.Diff.Span.CopyTo(block[diffAt..]);
            diffAt += run.Diff.Length;
        }
        uint crc = Crc32C.Append(Crc32C.Start, block[..headerLength]);
        _buffers.Add(_headers[index].Memory[..headerBlocks]);
        for (int i = 0; i < runs.Count; i++)
        {
            var run = runs[i];
            if (run.IsDiff) continue;
            crc = Crc32C.Append(crc, run.Data.Span);
            _buffers.Add(run.Data);
        }
        header->Checksum = Crc32C.Finish(crc);
    }

    /// <summary>
    /// Moves on to the next file for a write of <paramref name="length"/> bytes. For a small durable write the
    /// file must be preallocated: a spare of the next size when the checkpointer made one, else a file of the next
    /// size, but never more than <see cref="MaxPreallocationOnCommit"/> written on the commit path. A large write
    /// takes any file, extending it.
    /// </summary>
    private void SwitchFile(long length, bool large)
    {
        _generationSize = NextGenerationSize;
        long needed = JournalRecordHeader.AlignUp(length);
        long wanted = Math.Max(_generationSize, needed);
        var (next, capacity, written) = large
            ? OpenFile(CurrentFileNumber + 1, wanted, needed, preallocate: false)
            : OpenFile(CurrentFileNumber + 1, wanted, Math.Max(needed, Math.Min(_generationSize, MaxPreallocationOnCommit)), preallocate: true);
        lock (_syncLock)
        {
            var old = _file!;
            _file = next;
            _fileLength = capacity;
            _writtenLength = written;
            _offset = 0;
            CurrentFileNumber++;
            if (_durable) old.Dispose();
            else _unsyncedFiles.Add(old);
        }
        // A spare's zeros would be wasted on large writes, which take any file.
        _spareWanted = _durable && !large;
    }

    /// <summary>
    /// Makes every record appended so far durable, for a buffered (Lazy) journal; a write-through one already
    /// is. Called before pages go into the data file, which must never hold a page version newer than the
    /// durable journal: recovery replays in-place diffs onto whatever version the data file holds.
    /// </summary>
    public void SyncBuffered()
    {
        if (_durable) return;
        lock (_syncLock)
        {
            while (_unsyncedFiles.Count > 0)
            {
                _unsyncedFiles[0].Flush();
                _unsyncedFiles[0].Dispose();
                _unsyncedFiles.RemoveAt(0);
            }
            _file?.Flush();
        }
    }

    public void Dispose()
    {
        _file?.Dispose();
        foreach (var file in _unsyncedFiles) file.Dispose();
        _unsyncedFiles.Clear();
        foreach (var header in _headers) header.Free();
        _headers.Clear();
    }
}
