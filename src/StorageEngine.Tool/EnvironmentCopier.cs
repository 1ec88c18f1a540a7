namespace StorageEngine.Tool;

/// <summary>
/// Copies every tree of an environment, as one read transaction sees it, into a fresh environment with
/// <see cref="StorageEnvironment.CompactTo(StorageEnvironmentOptions, IProgress{CompactionProgress}?, CancellationToken)"/>,
/// then verifies the copy through a read-only open. Shared by compact and backup.
/// </summary>
internal static class EnvironmentCopier
{
    private const long JournalFileSize = 16L << 20;

    public static CopyResult Copy(string sourcePath, string targetPath, int? pageSize, Func<long, ProgressReporter> progressFor, CancellationToken cancel)
    {
        using var source = EnvironmentPaths.OpenExisting(sourcePath);
        var before = source.GetStatistics();
        string target = Path.GetFullPath(targetPath);
        var progress = new CompactionProgressReporter(progressFor);
        CompactionResult copied;
        try
        {
            copied = source.CompactTo(new StorageEnvironmentOptions { Path = target, PageSize = pageSize ?? before.PageSize, JournalFileSize = JournalFileSize },
                progress, cancel);
        }
        catch (ArgumentException e) when (e.ParamName is "destination" or "options")
        {
            throw new ToolException(e.Message.Split(" (Parameter")[0].Replace("The destination", "The target", StringComparison.Ordinal));
        }
        finally
        {
            progress.Complete();
        }
        CheckReport check;
        using (var copy = EnvironmentPaths.OpenReadOnly(target)) check = copy.Check();
        long data = new FileInfo(Path.Combine(target, EnvironmentPaths.DataFileName)).Length;
        long journal = Directory.EnumerateFiles(target, "journal*").Sum(f => new FileInfo(f).Length);
        return new CopyResult(copied.SourceTransactionId, copied.TreeCount, copied.EntryCount, before, data, journal, check);
    }
}
