namespace StorageEngine.Tool;

/// <summary>Finds and opens environments for the commands, turning every expected failure into a plain message.</summary>
internal static class EnvironmentPaths
{
    public const string DataFileName = "data.sedb";

    /// <summary>The directory of an existing environment: one holding a data file that is not empty.</summary>
    private static string EnvironmentDirectory(string path)
    {
        string directory = ExistingDirectory(path);
        var dataFile = new FileInfo(Path.Combine(directory, DataFileName));
        if (!dataFile.Exists)
            throw new ToolException($"'{path}' is not a StorageEngine environment: it has no {DataFileName} file.");
        if (dataFile.Length == 0)
            throw new ToolException($"'{dataFile.FullName}' is empty: it is not a StorageEngine data file.");
        return directory;
    }

    /// <summary>Opens an environment that must already exist; never creates one.</summary>
    public static StorageEnvironment OpenExisting(string path)
    {
        string directory = EnvironmentDirectory(path);
        return Open(path, new StorageEnvironmentOptions { Path = directory });
    }

    /// <summary>
    /// Opens an environment that must already exist, read-only: nothing is written, not even a checkpoint. One that
    /// was not closed cleanly needs recovery first, and is refused with a message saying how to recover it.
    /// </summary>
    public static StorageEnvironment OpenReadOnly(string path)
    {
        string directory = EnvironmentDirectory(path);
        try
        {
            return Open(path, new StorageEnvironmentOptions { Path = directory, ReadOnly = true });
        }
        catch (StorageException e) when (e is not (CorruptionException or EnvironmentLockedException))
        {
            throw new ToolException($"{e.Message} Recover it first (this replays the journal and writes): storageengine recover {path}");
        }
    }

    /// <summary>
    /// Whether an existing environment was left by a crash and needs its journal replayed before a read-only open
    /// can read it; null when it opens read-only as it is, else the engine's reason.
    /// </summary>
    public static string? RecoveryNeeded(string path)
    {
        string directory = EnvironmentDirectory(path);
        try
        {
            using var env = Open(path, new StorageEnvironmentOptions { Path = directory, ReadOnly = true });
            return null;
        }
        catch (StorageException e) when (e is not (CorruptionException or EnvironmentLockedException))
        {
            return e.Message;
        }
    }

    /// <summary>Opens an environment for loading: an existing one, or a new one in a missing or empty directory.</summary>
    public static StorageEnvironment OpenOrCreate(string path)
    {
        string directory = Path.GetFullPath(path);
        if (File.Exists(directory)) return OpenExisting(path);
        if (Directory.Exists(directory) && !File.Exists(Path.Combine(directory, DataFileName)) && Directory.EnumerateFileSystemEntries(directory).Any())
            throw new ToolException($"'{path}' is a directory with other files and no environment; give a new or empty directory.");
        return Open(path, new StorageEnvironmentOptions { Path = directory });
    }

    private static string ExistingDirectory(string path)
    {
        string full = Path.GetFullPath(path);
        if (File.Exists(full))
        {
            if (Path.GetFileName(full) == DataFileName) return Path.GetDirectoryName(full)!;
            throw new ToolException($"'{path}' is a file; give the directory of an environment (the one that holds {DataFileName}).");
        }
        if (!Directory.Exists(full)) throw new ToolException($"'{path}' does not exist.");
        return full;
    }

    private static StorageEnvironment Open(string path, StorageEnvironmentOptions options)
    {
        try
        {
            return StorageEnvironment.Open(options);
        }
        catch (EnvironmentLockedException)
        {
            throw new ToolException($"The environment '{path}' is in use: another process (or another instance) has it open. Close it and retry" +
                " (a running application can back it up itself with StorageEnvironment.BackupAsync; see the tool's README).");
        }
        catch (CorruptionException e)
        {
            throw new ToolException($"'{path}' does not hold a readable StorageEngine environment ({e.FilePath}, offset {e.Offset}): {e.Problem}");
        }
        catch (ArgumentOutOfRangeException e) when (e.ParamName == "options")
        {
            throw new ToolException(e.Message.Split(" (Parameter")[0]);
        }
    }
}
