using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using StorageEngine.Journal;
using StorageEngine.Platform;
using StorageEngine.Transactions;

namespace StorageEngine;

// What an open decides before it touches the files, and what it may give up to succeed.
public sealed partial class StorageEnvironment
{
    /// <summary>ENOSPC on Linux (the HResult .NET gives an IOException), and Windows' ERROR_DISK_FULL and ERROR_HANDLE_DISK_FULL.</summary>
    private const int LinuxNoSpace = 28;
    private const int WindowsDiskFull = unchecked((int)0x80070070);
    private const int WindowsHandleDiskFull = unchecked((int)0x80070027);

    /// <summary>
    /// The directory of the environment's files, as every later call names it. On the operating system's file system
    /// it is the full path (<see cref="Path.GetFullPath(string)"/>), resolved once: .NET's own file calls resolve
    /// <c>..</c> by the path's text, the kernel by the directories on the disk, and where the two disagree (a missing
    /// <c>x</c> in <c>x/../db</c>) an open created the data file through one and failed on the journal through the other.
    /// </summary>
    private static string ResolveDirectory(StorageEnvironmentOptions options, IFileSystem fileSystem)
    {
        if (options.Durability == DurabilityMode.InMemory && options.FileSystem is null) return "/memory";
        string path = options.Path ?? throw new ArgumentException("StorageEnvironmentOptions.Path is required unless Durability is InMemory.", nameof(options));
        if (fileSystem.IsInMemory) return path;
        try
        {
            return Path.GetFullPath(path);
        }
        catch (Exception e) when (e is ArgumentException or NotSupportedException or PathTooLongException)
        {
            throw new ArgumentException($"StorageEnvironmentOptions.Path '{path}' is not a valid directory path: {e.Message}", nameof(options), e);
        }
    }

    /// <summary>True when <paramref name="e"/> or an exception inside it says the disk is full.</summary>
    private static bool IsDiskFull(Exception? e)
    {
        for (; e is not null; e = e.InnerException)
        {
            if (e is IOException && e.HResult is LinuxNoSpace or WindowsDiskFull or WindowsHandleDiskFull) return true;
        }
        return false;
    }

    /// <summary>
    /// After an open failed on a full disk: deletes the spare journal files (<c>journal-free.*</c>), under the
    /// environment's lock, so that the open can use their space. They hold no record anything needs: a spare is a
    /// retired file kept only to be reused. Returns whether any was deleted (false: retrying would not help).
    /// </summary>
    private static bool GiveBackSpareJournalFiles(StorageEnvironmentOptions options)
    {
        if (options.ReadOnly || options.Durability == DurabilityMode.InMemory || options.Path is null) return false;
        var fileSystem = options.FileSystem ?? new OsFileSystem();
        try
        {
            string directory = ResolveDirectory(options, fileSystem);
            using var held = fileSystem.AcquireLock(Path.Combine(directory, EnvironmentFiles.LockFileName));
            var spares = fileSystem.ListFiles(directory).Where(JournalFileNames.IsFree).ToList();
            foreach (string name in spares) fileSystem.Delete(Path.Combine(directory, name));
            if (spares.Count > 0)
            {
                Common.EngineLog.SpareJournalFilesDeletedForSpace((options.LoggerFactory ?? NullLoggerFactory.Instance).CreateLogger("StorageEngine"), directory, spares.Count);
            }
            return spares.Count > 0;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or StorageException)
        {
            return false;
        }
    }
}
