namespace StorageEngine.Tool;

/// <summary>Shows a check's pages visited as progress.</summary>
internal sealed class CheckProgressReporter(ProgressReporter reporter) : IProgress<CheckProgress>
{
    public void Report(CheckProgress value) => reporter.Report(value.PagesVisited, value.TotalPages, "pages");

    public void Complete() => reporter.Complete();
}
