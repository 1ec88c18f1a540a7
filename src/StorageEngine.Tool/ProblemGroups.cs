using System.Globalization;
using System.Text.RegularExpressions;

namespace StorageEngine.Tool;

/// <summary>
/// Sorts the problems of a <see cref="CheckReport"/> into causes and their knock-on effects: one damaged page makes
/// its tree's entry and page counts disagree with its header, and leaves the pages under it unreached and so
/// "leaked". Those follow from the damage and are listed under it, so the user sees what to look at first.
/// </summary>
internal static partial class ProblemGroups
{
    /// <summary>A cause and the problems that follow from it.</summary>
    public sealed record Group(string Cause, List<string> Effects);

    public static List<Group> Of(IReadOnlyList<string> problems)
    {
        var groups = new List<Group>();
        var countMismatches = new List<(string Tree, string Text)>();
        var leaked = new List<long>();
        foreach (var problem in problems)
        {
            if (CountMismatch().Match(problem) is { Success: true } mismatch) countMismatches.Add((mismatch.Groups["tree"].Value, problem));
            else if (Leaked().Match(problem) is { Success: true } leak) leaked.Add(long.Parse(leak.Groups["page"].Value, CultureInfo.InvariantCulture));
            else groups.Add(new Group(problem, []));
        }
        // Damage that cut a tree's walk short: what was under it was not counted and not reached.
        var cutShort = groups.Where(g => WalkCutShort().IsMatch(g.Cause)).ToList();
        foreach (var (tree, text) in countMismatches)
        {
            var cause = cutShort.FirstOrDefault(g => g.Cause.StartsWith(tree, StringComparison.Ordinal));
            if (cause is not null) cause.Effects.Add(text);
            else groups.Add(new Group(text, []));
        }
        if (leaked.Count > 0)
        {
            string text = $"{Sizes.Count(leaked.Count)} page{(leaked.Count == 1 ? " is" : "s are")} neither in use nor marked free (leaked): {Ranges(leaked)}";
            if (cutShort.Count > 0) cutShort[^1].Effects.Add(text + (cutShort.Count > 1 ? " (under the damaged pages above)" : " (the pages under it, no longer reached)"));
            else groups.Add(new Group(text, []));
        }
        return groups;
    }

    /// <summary>Page numbers as ranges ("3, 7-12, 40"), at most 20 of them.</summary>
    private static string Ranges(List<long> pages)
    {
        pages.Sort();
        var parts = new List<string>();
        for (int i = 0; i < pages.Count;)
        {
            int j = i;
            while (j + 1 < pages.Count && pages[j + 1] == pages[j] + 1) j++;
            parts.Add(i == j ? pages[i].ToString(CultureInfo.InvariantCulture) : string.Create(CultureInfo.InvariantCulture, $"{pages[i]}-{pages[j]}"));
            i = j + 1;
        }
        return parts.Count <= 20 ? string.Join(", ", parts) : string.Join(", ", parts.Take(20)) + $", and {parts.Count - 20} more ranges";
    }

    [GeneratedRegex(@"^(?<tree>tree '.*'|\(tree of names\)) (says it has \d+ entries but holds|counts \d+ branch)")]
    private static partial Regex CountMismatch();

    [GeneratedRegex(@"^page (?<page>\d+) is neither in use nor marked free \(leaked\)\.$")]
    private static partial Regex Leaked();

    [GeneratedRegex(@"^(tree '.*'|\(tree of names\))(: | refers to page )")]
    private static partial Regex WalkCutShort();
}
