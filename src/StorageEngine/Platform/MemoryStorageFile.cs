namespace StorageEngine.Platform;

/// <summary>
/// A handle on an in-memory file. Handles are cheap and share the file's <see cref="MemoryFileState"/>; each one
/// remembers the crash generation it was opened in and stops working once a simulated crash has happened.
/// </summary>
internal sealed class MemoryStorageFile : IStorageFile
{
    private readonly MemoryFileSystem _fileSystem;
    private readonly MemoryFileState _state;
    private readonly int _generation;
    private int _disposed;

    /// <summary>Opens a handle; the caller has already counted it on <paramref name="state"/>.</summary>
    public MemoryStorageFile(MemoryFileSystem fileSystem, MemoryFileState state, string path, bool isWriteThrough, int generation)
    {
        _fileSystem = fileSystem;
        _state = state;
        Path = path;
        IsWriteThrough = isWriteThrough;
        _generation = generation;
    }

    /// <inheritdoc />
    public string Path { get; }

    /// <inheritdoc />
    public long Length
    {
        get
        {
            lock (_state.Sync)
            {
                ThrowIfUnusable();
                return _state.Length;
            }
        }
    }

    /// <summary>True for files opened <see cref="StorageFileMode.UnbufferedWriteThrough"/>: their writes are durable at once.</summary>
    public bool IsWriteThrough { get; }

    /// <summary>Always 1: memory has no sector size, and exercising misaligned callers is the OS file's job.</summary>
    public int Alignment => 1;

    /// <inheritdoc />
    public void SetLength(long length)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        lock (_state.Sync)
        {
            ThrowIfUnusable();
            _state.SetLength(length);
        }
    }

    /// <inheritdoc />
    public void Preallocate(long length)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        lock (_state.Sync)
        {
            ThrowIfUnusable();
            if (length > _state.Length)
            {
                _state.SetLength(length);
            }
        }

        // As on disk: preallocation is flushed, so that the new length itself is durable.
        Flush();
    }

    /// <inheritdoc />
    public int Read(long offset, Span<byte> destination)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        lock (_state.Sync)
        {
            ThrowIfUnusable();
            return _state.Read(offset, destination);
        }
    }

    /// <inheritdoc />
    public void Write(long offset, ReadOnlySpan<byte> source)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        lock (_state.Sync)
        {
            ThrowIfUnusable();
            _state.Write(offset, source, IsWriteThrough);
        }

        _fileSystem.CountWrite(source.Length);
    }

    /// <inheritdoc />
    /// <remarks>Recorded as one write, so a simulated power loss may tear it like a single pwritev.</remarks>
    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        ArgumentNullException.ThrowIfNull(buffers);
        long total = 0;
        for (int i = 0; i < buffers.Count; i++)
        {
            total += buffers[i].Length;
        }

        if (!_state.KeepsUndoLog)
        {
            // Nothing to tear: write the pieces in place without gathering them into one array.
            ArgumentOutOfRangeException.ThrowIfNegative(offset);
            lock (_state.Sync)
            {
                ThrowIfUnusable();
                long at = offset;
                for (int i = 0; i < buffers.Count; i++)
                {
                    _state.Write(at, buffers[i].Span, IsWriteThrough);
                    at += buffers[i].Length;
                }
            }

            _fileSystem.CountWrite(total);
            return;
        }

        byte[] gathered = new byte[checked((int)total)];
        int position = 0;
        for (int i = 0; i < buffers.Count; i++)
        {
            buffers[i].Span.CopyTo(gathered.AsSpan(position));
            position += buffers[i].Length;
        }

        Write(offset, gathered);
    }

    /// <inheritdoc />
    public void Flush()
    {
        lock (_state.Sync)
        {
            ThrowIfUnusable();
            _state.Flush();
        }

        _fileSystem.CountFlush();
    }

    /// <inheritdoc />
    /// <remarks>The view keeps the current buffer alive, so it stays readable after the file grows, is closed or is deleted.</remarks>
    public IMappedView Map(long length)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        lock (_state.Sync)
        {
            ThrowIfUnusable();
            return _state.Map(length, Path);
        }
    }

    /// <summary>Closes the handle. Allowed, and harmless, after a simulated crash invalidated it.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        lock (_state.Sync)
        {
            _state.RemoveHandle();
        }
    }

    /// <summary>
    /// Fails use after Dispose, and use after a simulated crash with an IOException, the error a real process's
    /// surviving threads could see, rather than letting a "dead" environment keep changing the files.
    /// </summary>
    private void ThrowIfUnusable()
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (_fileSystem.Generation != _generation)
        {
            throw new IOException($"The handle on '{Path}' was invalidated by a simulated crash.");
        }
    }
}
