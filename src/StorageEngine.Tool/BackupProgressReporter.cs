namespace StorageEngine.Tool;

/// <summary>Shows a backup's or restore's pages as progress.</summary>
internal sealed class BackupProgressReporter(ProgressReporter reporter) : IProgress<BackupProgress>
{
    public void Report(BackupProgress value) => reporter.Report(value.PagesCopied, value.TotalPages, "pages");

    public void Complete() => reporter.Complete();
}
