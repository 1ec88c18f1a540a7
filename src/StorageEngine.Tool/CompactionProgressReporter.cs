namespace StorageEngine.Tool;

/// <summary>Shows the library's compaction progress through a <see cref="ProgressReporter"/>, made once the total is known.</summary>
internal sealed class CompactionProgressReporter(Func<long, ProgressReporter> progressFor) : IProgress<CompactionProgress>
{
    private ProgressReporter? _reporter;

    public void Report(CompactionProgress value)
    {
        _reporter ??= progressFor(value.TotalEntries);
        _reporter.Report(value.EntriesCopied);
    }

    /// <summary>Clears the redrawn line, if any.</summary>
    public void Complete() => _reporter?.Complete();
}
