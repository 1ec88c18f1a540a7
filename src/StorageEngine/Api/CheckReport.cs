using StorageEngine.Transactions;

namespace StorageEngine;

/// <summary>What <see cref="StorageEnvironment.Check()"/> found.</summary>
public sealed class CheckReport
{
    internal CheckReport(IReadOnlyList<string> problems, long treeCount, long entryCount, long pagesInUse, long freePages, long pageCount)
    {
        Problems = problems;
        TreeCount = treeCount;
        EntryCount = entryCount;
        PagesInUse = pagesInUse;
        FreePages = freePages;
        PageCount = pageCount;
    }

    /// <summary>The public form of what the checker found.</summary>
    internal static CheckReport From(CheckResult result) =>
        new(result.Problems, result.TreeCount, result.EntryCount, result.PagesInUse, result.FreePages, result.PageCount);

    /// <summary>Each broken invariant, in words; empty when the environment is sound.</summary>
    public IReadOnlyList<string> Problems { get; }

    /// <summary>True when no problem was found.</summary>
    public bool IsHealthy => Problems.Count == 0;

    /// <summary>Named trees.</summary>
    public long TreeCount { get; }

    /// <summary>Entries in all named trees.</summary>
    public long EntryCount { get; }

    /// <summary>Pages reachable from the trees, plus headers and bitmaps.</summary>
    public long PagesInUse { get; }

    /// <summary>Pages marked free.</summary>
    public long FreePages { get; }

    /// <summary>Pages in the data file.</summary>
    public long PageCount { get; }

    /// <inheritdoc />
    public override string ToString() =>
        IsHealthy ? $"healthy: {TreeCount} trees, {EntryCount} entries, {PagesInUse} pages in use, {FreePages} free of {PageCount}"
                  : $"{Problems.Count} problems: " + string.Join("; ", Problems.Take(10));
}
