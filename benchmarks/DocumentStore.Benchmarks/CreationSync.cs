using StorageEngine.Workloads;

namespace DocumentStore.Benchmarks;

/// <summary>
/// Makes a newly created database survive a power loss from outside its engine: each of its files synced, then its
/// directory and that directory's parent, so that the files' names and the directory's own name are on the disk
/// too. This is what our <c>Safe</c> create does by itself before it returns; LiteDB's create syncs nothing, and the
/// benchmark calls this after it for a comparison at equal durability.
/// </summary>
internal static class CreationSync
{
    public static void SyncCreated(string directory)
    {
        foreach (string file in Directory.EnumerateFiles(directory))
        {
            using var stream = new FileStream(file, FileMode.Open, FileAccess.ReadWrite, FileShare.ReadWrite | FileShare.Delete);
            stream.Flush(flushToDisk: true);
        }
        // Only Linux: the flag values of Libc are Linux's (Windows has no sync of a directory through a handle).
        if (!OperatingSystem.IsLinux()) return;
        Libc.SyncDirectory(directory);
        Libc.SyncDirectory(Path.GetDirectoryName(Path.GetFullPath(directory))!);
    }
}
