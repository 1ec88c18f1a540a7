using StorageEngine.Transactions;

namespace StorageEngine;

/// <summary>
/// Passes the checker's progress on as the public <see cref="CheckProgress"/>, on the checking thread (as
/// <see cref="StorageEnvironment.Check(IProgress{CheckProgress}?, CancellationToken)"/> promises; a
/// <see cref="Progress{T}"/> would post it to a synchronization context).
/// </summary>
internal sealed class CheckProgressForwarder(IProgress<CheckProgress> target) : IProgress<CheckWalkProgress>
{
    /// <summary>A forwarder to <paramref name="target"/>, or null when there is none.</summary>
    public static CheckProgressForwarder? To(IProgress<CheckProgress>? target) => target is null ? null : new(target);

    public void Report(CheckWalkProgress value) =>
        target.Report(new CheckProgress { PagesVisited = value.PagesVisited, TotalPages = value.TotalPages });
}
