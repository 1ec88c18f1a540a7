namespace StorageEngine.Tool;

/// <summary>
/// Copies every tree of an environment, as one read transaction sees it, into a fresh environment in large
/// write transactions. The copy is consistent (one snapshot) and dense (keys arrive in order, so leaves
/// fill up). Shared by compact and backup.
/// </summary>
internal static class EnvironmentCopier
{
    private const long BatchBytes = 8L << 20;

    public static CopyResult Copy(string sourcePath, string targetPath, int? pageSize, Func<long, ProgressReporter> progressFor, CancellationToken cancel)
    {
        using var source = EnvironmentPaths.OpenExisting(sourcePath);
        var before = source.GetStatistics();
        string target = Path.GetFullPath(targetPath);
        if (string.Equals(target.TrimEnd(Path.DirectorySeparatorChar), source.Directory.TrimEnd(Path.DirectorySeparatorChar), StringComparison.Ordinal))
            throw new ToolException("The target must be another directory than the source.");
        bool targetExisted = Directory.Exists(target);
        var destination = EnvironmentPaths.CreateFresh(targetPath, pageSize ?? before.PageSize);
        try
        {
            long snapshot, entries;
            int trees;
            using (var read = source.BeginRead())
            {
                var names = read.GetTreeNames();
                long total = names.Sum(n => read.OpenTree(n).Count);
                var progress = progressFor(total);
                (trees, entries) = (names.Count, 0);
                snapshot = read.SnapshotId;
                var write = destination.BeginWrite();
                try
                {
                    long batch = 0;
                    foreach (var name in names)
                    {
                        cancel.ThrowIfCancellationRequested();
                        var from = read.OpenTree(name);
                        var to = write.CreateTree(name, from.Options);
                        using var cursor = from.CreateCursor();
                        for (bool more = cursor.First(); more; more = cursor.Next())
                        {
                            to.Put(cursor.Key, cursor.Value);
                            batch += cursor.Key.Length + cursor.Value.Length + 16;
                            progress.Report(++entries);
                            if (batch < BatchBytes) continue;
                            cancel.ThrowIfCancellationRequested();
                            write.Commit();
                            write = destination.BeginWrite();
                            to = write.CreateTree(name, from.Options);
                            batch = 0;
                        }
                    }
                    write.Commit();
                }
                finally
                {
                    write.Dispose();
                    progress.Complete();
                }
            }
            destination.Checkpoint();
            var check = destination.Check();
            destination.Dispose();
            // Spare journal files are preallocated for the next commits; a finished copy has none to make.
            foreach (var spare in Directory.EnumerateFiles(target, "journal-free.*")) File.Delete(spare);
            long data = new FileInfo(Path.Combine(target, EnvironmentPaths.DataFileName)).Length;
            long journal = Directory.EnumerateFiles(target, "journal*").Sum(f => new FileInfo(f).Length);
            return new CopyResult(snapshot, trees, entries, before, data, journal, check);
        }
        catch
        {
            // A copy cut short is of no use: remove what was written, leaving the target as it was found.
            destination.Dispose();
            if (targetExisted) foreach (var entry in Directory.EnumerateFileSystemEntries(target)) DeleteEntry(entry);
            else Directory.Delete(target, recursive: true);
            throw;
        }
    }

    private static void DeleteEntry(string path)
    {
        if (Directory.Exists(path)) Directory.Delete(path, recursive: true);
        else File.Delete(path);
    }
}
