namespace StorageEngine;

/// <summary>
/// How far <see cref="StorageEnvironment.Check(IProgress{CheckProgress}?, CancellationToken)"/> has come. Every page
/// of the data file is visited once: a page in use when the walk of the trees reaches it, any other page when the
/// free-space pass does. Reports never go backwards, and the last one has <see cref="PagesVisited"/> equal to
/// <see cref="TotalPages"/>.
/// </summary>
public sealed record CheckProgress
{
    /// <summary>Pages visited so far.</summary>
    public required long PagesVisited { get; init; }

    /// <summary>Pages in the data file (the snapshot being checked).</summary>
    public required long TotalPages { get; init; }

    /// <summary>Share of the work done, from 0 to 1.</summary>
    public double Fraction => TotalPages == 0 ? 1 : (double)PagesVisited / TotalPages;
}
