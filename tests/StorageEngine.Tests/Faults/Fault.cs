namespace StorageEngine.Tests.Faults;

/// <summary>
/// One planned fault: the <paramref name="Nth"/> call (1-based, counted from when it is armed) of
/// <paramref name="Operation"/> on a file whose name passes <paramref name="Files"/> fails as <paramref name="Kind"/>.
/// A sticky fault keeps failing every later matching call (a disk that stays full) until it is cleared.
/// </summary>
internal sealed record Fault(FileOperation Operation, int Nth, FaultKind Kind, bool Sticky = false, Func<string, bool>? Files = null)
{
    /// <summary>Matches data-file calls only.</summary>
    public static bool DataFile(string path) => Path.GetFileName(path).StartsWith("data.sedb", StringComparison.Ordinal);

    /// <summary>Matches journal-file calls only (current and free ones).</summary>
    public static bool JournalFile(string path) => Path.GetFileName(path).StartsWith("journal", StringComparison.Ordinal);

    public override string ToString() => $"{Kind} at {Operation} #{Nth}{(Sticky ? " (sticky)" : "")}";
}
