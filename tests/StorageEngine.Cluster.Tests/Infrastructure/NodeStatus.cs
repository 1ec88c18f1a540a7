using System.Text.RegularExpressions;

namespace StorageEngine.Cluster.Tests.Infrastructure;

/// <summary>A node's <see cref="ClusterNode.DescribeState"/> line, parsed.</summary>
internal sealed partial record NodeStatus(bool IsLeader, long Term, string Leader, long Applied, long Committed, int SnapshotsTaken, int SnapshotsInstalled, long SyncedAppends)
{
    public static NodeStatus Parse(string line)
    {
        var match = Pattern().Match(line);
        if (!match.Success) throw new FormatException($"Not a status line: {line}");
        return new NodeStatus(
            match.Groups["role"].Value == "leader",
            long.Parse(match.Groups["term"].Value),
            match.Groups["leader"].Value,
            long.Parse(match.Groups["applied"].Value),
            long.Parse(match.Groups["committed"].Value),
            int.Parse(match.Groups["taken"].Value),
            int.Parse(match.Groups["installed"].Value),
            long.Parse(match.Groups["synced"].Value));
    }

    [GeneratedRegex(@"^node \S+ (?<role>leader|follower) term (?<term>\d+) leader (?<leader>\S+) applied (?<applied>\d+) committed (?<committed>\d+) snapshots taken (?<taken>\d+) installed (?<installed>\d+) synced appends (?<synced>\d+)$")]
    private static partial Regex Pattern();
}
