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
}
