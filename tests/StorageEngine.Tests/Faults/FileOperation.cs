namespace StorageEngine.Tests.Faults;

/// <summary>The kinds of file-system call a <see cref="FaultyFileSystem"/> counts and can fail.</summary>
public enum FileOperation
{
    /// <summary>A positional or gathered write.</summary>
    Write,

    /// <summary>A sync (<c>IStorageFile.Flush</c>, fdatasync).</summary>
    Sync,

    /// <summary>A file growing: <c>SetLength</c> to a larger size, <c>Preallocate</c>, or a write that ends past the end.</summary>
    Growth,

    /// <summary>A positional read (the mapped view is not a call, see <see cref="FaultyFileSystem.PoisonMappedPage"/>).</summary>
    Read,

    /// <summary>Creating a file, renaming or deleting one.</summary>
    DirectoryChange,
}
