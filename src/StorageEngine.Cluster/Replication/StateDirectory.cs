using System.Globalization;
using System.Text;
using StorageEngine.Platform;

namespace StorageEngine.Cluster.Replication;

/// <summary>
/// Where a node keeps its environment: <c>state/g-NNNNNN/</c> generations and a <c>state/CURRENT</c> file naming the
/// one in use. Installing a snapshot restores it into the next generation and then switches <c>CURRENT</c>
/// (written to a temporary file, synced and renamed), so a crash at any point leaves either the old or the new
/// environment in use, never a half-restored one; leftover generations are deleted on open.
/// </summary>
internal sealed class StateDirectory
{
    private const string CurrentFileName = "CURRENT";
    private const string Prefix = "g-";
    private readonly string _root;
    private readonly StorageEnvironmentOptions _template;
    private int _generation;

    public StateDirectory(string root, StorageEnvironmentOptions template)
    {
        _root = root;
        _template = template;
        Directory.CreateDirectory(root);
    }

    /// <summary>The directory of the environment in use.</summary>
    public string CurrentPath => GenerationPath(_generation);

    /// <summary>The directory of the environment in use under a node's data directory, for tools and tests that open it while the node is stopped.</summary>
    public static string CurrentPathOf(string root)
    {
        string current = Path.Combine(root, CurrentFileName);
        int generation = File.Exists(current) ? int.Parse(File.ReadAllText(current).Trim(), CultureInfo.InvariantCulture) : 0;
        return Path.Combine(root, Prefix + generation.ToString("D6", CultureInfo.InvariantCulture));
    }

    /// <summary>Opens (or creates) the environment in use and deletes every other generation.</summary>
    public StorageEnvironment OpenCurrent()
    {
        string current = Path.Combine(_root, CurrentFileName);
        _generation = File.Exists(current) ? int.Parse(File.ReadAllText(current).Trim(), CultureInfo.InvariantCulture) : 0;
        foreach (string directory in Directory.EnumerateDirectories(_root, Prefix + "*"))
            if (!string.Equals(Path.GetFileName(directory), Path.GetFileName(CurrentPath), StringComparison.Ordinal))
                Directory.Delete(directory, recursive: true);
        return Open(CurrentPath);
    }

    /// <summary>Restores <paramref name="snapshotPath"/> into a new generation, makes it the one in use and opens it.</summary>
    public async Task<StorageEnvironment> RestoreAsync(string snapshotPath, CancellationToken cancellationToken)
    {
        int next = _generation + 1;
        string directory = GenerationPath(next);
        if (Directory.Exists(directory)) Directory.Delete(directory, recursive: true);
        var source = new FileStream(snapshotPath, FileMode.Open, FileAccess.Read, FileShare.Read, 1 << 16, FileOptions.Asynchronous | FileOptions.SequentialScan);
        await using (source.ConfigureAwait(false))
            await StorageEnvironment.RestoreAsync(source, directory, progress: null, cancellationToken).ConfigureAwait(false);
        var environment = Open(directory);
        try
        {
            string temporary = Path.Combine(_root, CurrentFileName + ".tmp");
            using (var file = new FileStream(temporary, FileMode.Create, FileAccess.Write))
            {
                file.Write(Encoding.ASCII.GetBytes(next.ToString(CultureInfo.InvariantCulture)));
                file.Flush(flushToDisk: true);
            }
            // Renamed and the directory synced: the switch to the new generation survives a power loss.
            OsFileSystem.Instance.Rename(temporary, Path.Combine(_root, CurrentFileName));
        }
        catch
        {
            environment.Dispose();
            throw;
        }
        _generation = next;
        return environment;
    }

    /// <summary>Deletes a generation no longer in use; best effort (a failure leaves it for the next open).</summary>
    public static void TryDelete(string directory)
    {
        try
        {
            if (Directory.Exists(directory)) Directory.Delete(directory, recursive: true);
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }
    }

    private StorageEnvironment Open(string path)
    {
        var options = new StorageEnvironmentOptions
        {
            Path = path,
            Durability = _template.Durability,
            PageSize = _template.PageSize,
            JournalFileSize = _template.JournalFileSize,
            CheckpointThreshold = _template.CheckpointThreshold,
            CheckpointInterval = _template.CheckpointInterval,
            WriteTimeout = _template.WriteTimeout,
            MaxReaders = _template.MaxReaders,
            LoggerFactory = _template.LoggerFactory,
        };
        return StorageEnvironment.Open(options);
    }

    private string GenerationPath(int generation) =>
        Path.Combine(_root, Prefix + generation.ToString("D6", CultureInfo.InvariantCulture));
}
