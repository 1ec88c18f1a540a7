namespace StorageEngine.Platform;

/// <summary>A read-only mapping of the start of a file.</summary>
internal unsafe interface IMappedView : IDisposable
{
    /// <summary>Address of byte 0 of the file.</summary>
    byte* Pointer { get; }

    /// <summary>Number of bytes mapped.</summary>
    long Length { get; }

    /// <summary>
    /// Says that no reader relies on this view showing later writes any more; it must stay readable (stale bytes
    /// are fine) until disposed. A file mapping does nothing; an in-memory file stops copying writes into it.
    /// </summary>
    void Retire();

    /// <summary>
    /// Asks the OS to read nothing ahead of a page fault in this view: readers of a B+tree jump around the file, and
    /// on data larger than memory the neighbours read ahead push out pages that are wanted. Best effort: nothing
    /// happens where the OS has no such advice (Windows) or for an in-memory file.
    /// </summary>
    void AdviseRandomAccess();
}
