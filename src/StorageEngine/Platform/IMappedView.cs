namespace StorageEngine.Platform;

/// <summary>A read-only mapping of the start of a file.</summary>
internal unsafe interface IMappedView : IDisposable
{
    /// <summary>Address of byte 0 of the file.</summary>
    byte* Pointer { get; }

    /// <summary>Number of bytes mapped.</summary>
    long Length { get; }
}
