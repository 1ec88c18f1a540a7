namespace StorageEngine.Tests.Stress;

/// <summary>Where a stress test keeps its environment.</summary>
public enum StressTarget
{
    /// <summary>The real file system (OsFileSystem, O_DIRECT|O_DSYNC journal), in a temporary directory.</summary>
    OsFiles,

    /// <summary>A MemoryFileSystem, which can also lose power at the end.</summary>
    MemoryFiles,
}
