namespace StorageEngine;

/// <summary>
/// A file holds data that fails a checksum, a magic number, a version or a structural check. The data is
/// never returned as if it were valid; the exception names the file and the byte offset.
/// </summary>
public sealed class CorruptionException : StorageException
{
    /// <summary>Creates the exception for a file and offset.</summary>
    public CorruptionException(string filePath, long offset, string problem)
        : base($"Corruption in '{filePath}' at offset {offset}: {problem}")
    {
        FilePath = filePath;
        Offset = offset;
        Problem = problem;
    }

    /// <summary>The file that holds the corrupt data.</summary>
    public string FilePath { get; }

    /// <summary>Byte offset in <see cref="FilePath"/> of the corrupt structure.</summary>
    public long Offset { get; }

    /// <summary>What is wrong, without the location.</summary>
    public string Problem { get; }
}
