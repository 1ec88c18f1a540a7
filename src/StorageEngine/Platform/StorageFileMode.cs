namespace StorageEngine.Platform;

/// <summary>How a file is opened.</summary>
[Flags]
internal enum StorageFileMode
{
    /// <summary>Ordinary buffered I/O; durability needs <see cref="IStorageFile.Flush"/>.</summary>
    Buffered = 0,

    /// <summary>
    /// Ask for unbuffered (O_DIRECT / FILE_FLAG_NO_BUFFERING) and write-through (O_DSYNC /
    /// FILE_FLAG_WRITE_THROUGH) I/O. Where the file system refuses unbuffered I/O the file falls back to
    /// buffered writes and reports <see cref="IStorageFile.IsWriteThrough"/> = false, so the caller syncs.
    /// Buffers and offsets must then be aligned to <see cref="IStorageFile.Alignment"/>.
    /// </summary>
    UnbufferedWriteThrough = 1,

    /// <summary>
    /// For a buffered file written mostly by appends within its length (a Lazy journal): small writes are copied into
    /// a shared writable mapping of the file instead of each being a system call. They reach the page cache as a
    /// write does, so they survive the process and <see cref="IStorageFile.Flush"/> makes them durable. Honoured
    /// on Linux (where the file system can reserve blocks ahead, so that a full disk fails a write rather than
    /// faulting the process) and Windows; elsewhere, and for writes outside the mapped length, writes are writes.
    /// </summary>
    MappedAppends = 2,

    /// <summary>
    /// A file made under a temporary name to be renamed into place: creating it does not sync its directory,
    /// since only the rename, which does, makes the file count. A crash before the rename leaves the temporary
    /// name or nothing, and the next try starts the file again either way.
    /// </summary>
    RenamedIntoPlace = 4,

    /// <summary>
    /// Opens only a file that exists, and creates nothing: a missing one is a <see cref="FileNotFoundException"/>.
    /// For a look at a file that another thread may delete meanwhile (the journal files that statistics list):
    /// opening it the usual way made an empty file again under the deleted one's name. Buffered opens only.
    /// </summary>
    Existing = 8,
}
