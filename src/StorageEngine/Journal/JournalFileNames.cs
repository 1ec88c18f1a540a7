using System.Globalization;

namespace StorageEngine.Journal;

/// <summary>Names of journal files: <c>journal.0000000001</c> in use, <c>journal-free.N</c> waiting for reuse.</summary>
internal static class JournalFileNames
{
    private const string Prefix = "journal.";
    private const string FreePrefix = "journal-free.";

    public static string ForNumber(long number) => Prefix + number.ToString("D10", CultureInfo.InvariantCulture);

    public static string Free(long number) => FreePrefix + number.ToString(CultureInfo.InvariantCulture);

    public static bool TryParse(string name, out long number) =>
        long.TryParse(name.StartsWith(Prefix, StringComparison.Ordinal) ? name[Prefix.Length..] : null,
            NumberStyles.None, CultureInfo.InvariantCulture, out number);

    public static bool IsFree(string name) => name.StartsWith(FreePrefix, StringComparison.Ordinal);

    /// <summary>Whether <paramref name="name"/> is a journal file, in use or waiting for reuse.</summary>
    public static bool IsJournalFile(string name) => TryParse(name, out _) || IsFree(name);
}
