namespace StorageEngine.Platform;

/// <summary>One open file: positional reads and writes, gathered writes, sync, and read-only mapping.</summary>
internal interface IStorageFile : IDisposable
{
    string Path { get; }

    /// <summary>Current length in bytes.</summary>
    long Length { get; }

    /// <summary>True when a write is durable once it returns (O_DIRECT|O_DSYNC in effect).</summary>
    bool IsWriteThrough { get; }

    /// <summary>Required alignment of offsets, lengths and buffer addresses for writes (1 when buffered).</summary>
    int Alignment { get; }

    /// <summary>Sets the length (extending with zeros, or truncating).</summary>
    void SetLength(long length);

    /// <summary>
    /// Extends the file to at least <paramref name="length"/> with blocks actually written (zeros), so that
    /// later unbuffered writes do not allocate blocks or update metadata.
    /// </summary>
    void Preallocate(long length);

    /// <summary>
    /// <see cref="Preallocate(long)"/>, and when <paramref name="nothingWaits"/> (no durable commit can be waiting
    /// behind these writes on the device: the file is one its caller must have before it goes on) the zeros may go in
    /// one write rather than in small chunks, which on a write-through file is one device flush instead of one per chunk.
    /// </summary>
    void Preallocate(long length, bool nothingWaits) => Preallocate(length);

    /// <summary>Reads up to destination.Length bytes at offset; returns bytes read (less only at end of file).</summary>
    int Read(long offset, Span<byte> destination);

    void Write(long offset, ReadOnlySpan<byte> source);

    /// <summary>Writes the buffers back to back, starting at offset, with one vectored call where possible.</summary>
    void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers);

    /// <summary>Makes every completed write durable (fdatasync).</summary>
    void Flush();

    /// <summary>
    /// Asks the operating system to start writing [<paramref name="offset"/>, <paramref name="offset"/> +
    /// <paramref name="length"/>) to the device now, without waiting for it, so that the device works while
    /// the caller goes on writing the next range. A hint only: nothing is durable until <see cref="Flush"/>
    /// returns, and file systems without such a call (this default) do nothing.
    /// </summary>
    void StartWriteback(long offset, long length)
    {
    }

    /// <summary>Maps [0, length) read-only. The view stays valid until disposed, whatever happens to the file.</summary>
    IMappedView Map(long length);

    /// <summary>
    /// Locks the environment through this open data file until it is closed: exclusively for a read-write open,
    /// shared for a read-only one. Unlike the lock on the <c>LOCK</c> file, it cannot be lost by deleting or
    /// replacing a file while the environment is open: it is on the data file the environment has open. Returns
    /// false, with what holds it where that can be told, when another open holds a conflicting lock. File
    /// systems without such locks take none (this default).
    /// </summary>
    bool TryLockEnvironment(bool shared, out string? holder)
    {
        holder = null;
        return true;
    }
}
