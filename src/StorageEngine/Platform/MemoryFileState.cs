namespace StorageEngine.Platform;

/// <summary>
/// The content of one in-memory file, shared by every handle opened on it (like an inode). It keeps the current
/// content in a growable native buffer plus an undo log of the operations since the last flush; the durable
/// content is the current content with that log undone.
/// </summary>
/// <remarks>
/// Every member except <see cref="Sync"/> requires the caller to hold <see cref="Sync"/>: the handle checks its
/// own validity and performs the operation under one lock acquisition, so a simulated crash cannot slip between.
/// </remarks>
internal sealed unsafe class MemoryFileState
{
    /// <summary>Smallest buffer allocated, so that a file written in small appends does not reallocate every time.</summary>
    private const long MinimumCapacity = 64 * 1024;

    private readonly List<MemoryPendingOperation> _pending = [];
    private MemoryBuffer? _buffer;
    // Buffers replaced by growth that mapped views still read: writes go to them too, as every mapping of a
    // file shows its writes. Each holds this file's reference until no view is left.
    private readonly List<MemoryBuffer> _older = [];
    private long _length;
    private int _openHandles;
    private bool _linked = true;

    /// <summary>Creates an empty file; <paramref name="keepsUndoLog"/>: see <see cref="KeepsUndoLog"/>.</summary>
    public MemoryFileState(bool keepsUndoLog) => KeepsUndoLog = keepsUndoLog;

    /// <summary>
    /// Whether unflushed writes are logged so that a simulated power loss can undo them; without it every write
    /// is durable at once (see <see cref="MemoryFileSystem"/>'s constructor).
    /// </summary>
    public bool KeepsUndoLog { get; }

    /// <summary>Guards all of the state.</summary>
    public object Sync { get; } = new();

    /// <summary>Current length.</summary>
    public long Length => _length;

    /// <summary>Counts a handle opened on the file, which keeps its memory alive after deletion.</summary>
    public void AddHandle() => _openHandles++;

    /// <summary>Counts a handle closed; frees the memory if the file was deleted and this was the last handle.</summary>
    public void RemoveHandle()
    {
        _openHandles--;
        ReleaseIfUnreachable();
    }

    /// <summary>Marks the file deleted (or replaced by a rename); its memory goes with the last handle.</summary>
    public void Unlink()
    {
        _linked = false;
        ReleaseIfUnreachable();
    }

    /// <summary>Copies bytes at <paramref name="offset"/> into <paramref name="destination"/>; fewer only at end of file.</summary>
    public int Read(long offset, Span<byte> destination)
    {
        if (offset >= _length || _buffer is null)
        {
            return 0;
        }

        int count = (int)Math.Min(destination.Length, _length - offset);
        new ReadOnlySpan<byte>(_buffer.Pointer + offset, count).CopyTo(destination);
        return count;
    }

    /// <summary>
    /// Writes <paramref name="source"/> at <paramref name="offset"/>, extending the file (with a zero-filled gap
    /// if it starts past the end). A durable write skips the undo log when nothing volatile precedes it, which
    /// keeps a write-through journal's log empty.
    /// </summary>
    public void Write(long offset, ReadOnlySpan<byte> source, bool isDurable)
    {
        if (source.IsEmpty)
        {
            return;
        }

        long end = offset + source.Length;
        if (KeepsUndoLog && (!isDurable || _pending.Count > 0))
        {
            byte[] before = Slice(offset, Math.Min(end, _length));
            _pending.Add(MemoryPendingOperation.Write(offset, source.ToArray(), before, _length, isDurable));
        }

        Apply(offset, source);
    }

    /// <summary>Sets the length, zero-filling on extension; durable only once flushed.</summary>
    public void SetLength(long length)
    {
        if (length == _length)
        {
            return;
        }

        if (KeepsUndoLog)
        {
            byte[] before = Slice(length, _length);
            _pending.Add(MemoryPendingOperation.SetLength(_length, length, before));
        }

        Resize(length);
    }

    /// <summary>Makes everything written so far durable.</summary>
    public void Flush() => _pending.Clear();

    /// <summary>Returns a view of [0, length) over the current buffer, holding a reference on it.</summary>
    public MemoryMappedView Map(long length, string path)
    {
        if (length > _length)
        {
            throw new ArgumentOutOfRangeException(nameof(length), length, $"Cannot map {length} bytes of '{path}', which is only {_length} bytes long.");
        }

        if (length == 0 || _buffer is null)
        {
            return new MemoryMappedView(null, 0);
        }

        _buffer.AddReference();
        return new MemoryMappedView(_buffer, length);
    }

    /// <summary>
    /// Reverts to the durable content. With <paramref name="random"/>, each volatile operation independently
    /// reaches the disk with probability 1/2, in order; with <paramref name="tearWrites"/> as well, a surviving
    /// write may keep only a prefix ending on a 512-byte sector boundary (with <paramref name="scatterTears"/>, any
    /// subset of its sectors). With <paramref name="reorderWrites"/> the surviving volatile writes between two
    /// ordering points (a length change, a write-through write) land in random order. The result becomes the
    /// durable content.
    /// </summary>
    public void SimulatePowerLoss(Random? random, bool tearWrites, bool reorderWrites = false, bool scatterTears = false)
    {
        // Undo everything in reverse order, which yields exactly the content as of the last flush.
        for (int i = _pending.Count - 1; i >= 0; i--)
        {
            MemoryPendingOperation op = _pending[i];
            if (op.IsWrite)
            {
                Apply(op.Offset, op.Before);
                Resize(op.OldLength);
            }
            else
            {
                Resize(op.OldLength);
                Apply(op.NewLength, op.Before);
            }
        }

        if (reorderWrites && random is not null)
        {
            RedoReordered(random, tearWrites, scatterTears);
            return;
        }

        // Then redo what reached the disk: write-through writes always, the rest by chance.
        foreach (MemoryPendingOperation op in _pending)
        {
            bool survives = op.IsDurable || (random is not null && random.Next(2) == 0);
            if (!survives)
            {
                continue;
            }

            if (!op.IsWrite)
            {
                Resize(op.NewLength);
                continue;
            }

            int length = op.Data.Length;
            if (tearWrites && !op.IsDurable && random is not null)
            {
                if (scatterTears)
                {
                    ApplyScattered(op, random);
                    continue;
                }

                length = TornLength(op.Offset, length, random);
            }

            Apply(op.Offset, op.Data.AsSpan(0, length));
        }

        _pending.Clear();
    }

    /// <summary>
    /// Redoes the surviving operations with the volatile writes between ordering points shuffled, each torn
    /// as asked; durable writes and length changes land in place.
    /// </summary>
    private void RedoReordered(Random random, bool tearWrites, bool scatterTears)
    {
        var batch = new List<MemoryPendingOperation>();
        foreach (MemoryPendingOperation op in _pending)
        {
            if (op.IsWrite && !op.IsDurable)
            {
                if (random.Next(2) == 0)
                {
                    batch.Add(op);
                }

                continue;
            }

            LandShuffled(batch, random, tearWrites, scatterTears);
            if (op.IsWrite)
            {
                Apply(op.Offset, op.Data);
            }
            else if (random.Next(2) == 0)
            {
                Resize(op.NewLength);
            }
        }

        LandShuffled(batch, random, tearWrites, scatterTears);
        _pending.Clear();
    }

    private void LandShuffled(List<MemoryPendingOperation> batch, Random random, bool tearWrites, bool scatterTears)
    {
        for (int i = batch.Count - 1; i > 0; i--)
        {
            int j = random.Next(i + 1);
            (batch[i], batch[j]) = (batch[j], batch[i]);
        }

        foreach (MemoryPendingOperation op in batch)
        {
            if (!tearWrites)
            {
                Apply(op.Offset, op.Data);
            }
            else if (scatterTears)
            {
                ApplyScattered(op, random);
            }
            else
            {
                Apply(op.Offset, op.Data.AsSpan(0, TornLength(op.Offset, op.Data.Length, random)));
            }
        }

        batch.Clear();
    }

    /// <summary>Lands a random subset of the write's 512-byte sectors (all, none or any mix of them).</summary>
    private void ApplyScattered(MemoryPendingOperation op, Random random)
    {
        const int SectorSize = 512;
        int start = 0;
        while (start < op.Data.Length)
        {
            int end = (int)Math.Min(op.Data.Length, ((op.Offset + start) / SectorSize + 1) * SectorSize - op.Offset);
            if (random.Next(2) == 0)
            {
                Apply(op.Offset + start, op.Data.AsSpan(start, end - start));
            }

            start = end;
        }
    }

    /// <summary>
    /// Picks how much of a write reached the disk: the whole of it, or a prefix cut at one of the sector
    /// boundaries strictly inside it, each equally likely.
    /// </summary>
    private static int TornLength(long offset, int length, Random random)
    {
        const int SectorSize = 512;
        long firstBoundary = (offset / SectorSize + 1) * SectorSize;
        long end = offset + length;
        int boundaries = firstBoundary >= end ? 0 : (int)((end - 1 - firstBoundary) / SectorSize) + 1;
        int choice = random.Next(boundaries + 1);
        return choice == boundaries ? length : (int)(firstBoundary + (long)choice * SectorSize - offset);
    }

    /// <summary>Copies bytes into the buffer, growing the file as needed; no logging.</summary>
    private void Apply(long offset, ReadOnlySpan<byte> source)
    {
        if (source.IsEmpty)
        {
            return;
        }

        long end = offset + source.Length;
        EnsureCapacity(end);
        source.CopyTo(new Span<byte>(_buffer!.Pointer + offset, source.Length));
        for (int i = _older.Count - 1; i >= 0; i--)
        {
            MemoryBuffer older = _older[i];
            if (!older.IsShared)
            {
                older.Release();
                _older.RemoveAt(i);
                continue;
            }

            long visible = Math.Min(end, older.Capacity) - offset;
            if (visible > 0)
            {
                source[..(int)visible].CopyTo(new Span<byte>(older.Pointer + offset, (int)visible));
            }
        }

        if (end > _length)
        {
            _length = end;
        }
    }

    /// <summary>Sets the length without logging, keeping every byte past the end zero so that growth reads zeros.</summary>
    private void Resize(long length)
    {
        if (length < _length)
        {
            ClearRange(length, _length);
        }
        else
        {
            EnsureCapacity(length);
        }

        _length = length;
    }

    private void ClearRange(long start, long end)
    {
        if (_buffer is null)
        {
            return;
        }

        for (long position = start; position < end; position += int.MaxValue)
        {
            int count = (int)Math.Min(int.MaxValue, end - position);
            new Span<byte>(_buffer.Pointer + position, count).Clear();
        }
    }

    private byte[] Slice(long start, long end)
    {
        if (end <= start || _buffer is null)
        {
            return [];
        }

        return new ReadOnlySpan<byte>(_buffer.Pointer + start, checked((int)(end - start))).ToArray();
    }

    /// <summary>
    /// Grows geometrically into a new buffer. The old one is kept while views made from it remain, and later
    /// writes reach it too (see <see cref="Apply"/>).
    /// </summary>
    private void EnsureCapacity(long needed)
    {
        if (needed == 0 || (_buffer is not null && _buffer.Capacity >= needed))
        {
            return;
        }

        long capacity = Math.Max(MinimumCapacity, Math.Max(needed, (_buffer?.Capacity ?? 0) * 2));
        capacity = (capacity + MemoryBuffer.BufferAlignment - 1) / MemoryBuffer.BufferAlignment * MemoryBuffer.BufferAlignment;
        var grown = new MemoryBuffer(capacity);
        if (_buffer is not null)
        {
            Buffer.MemoryCopy(_buffer.Pointer, grown.Pointer, capacity, _length);
            _older.Add(_buffer);
        }

        _buffer = grown;
    }

    private void ReleaseIfUnreachable()
    {
        if (!_linked && _openHandles == 0 && _buffer is not null)
        {
            _buffer.Release();
            _buffer = null;
            foreach (MemoryBuffer older in _older)
            {
                older.Release();
            }

            _older.Clear();
            _length = 0;
            _pending.Clear();
        }
    }
}
