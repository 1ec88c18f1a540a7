using System.CommandLine;
using System.Text.Json;

namespace StorageEngine.Tool;

/// <summary><c>info</c>: the environment's files, space and trees at a glance.</summary>
internal static class InfoCommand
{
    public static Command Create(ToolContext context)
    {
        var path = CommonOptions.EnvironmentPath();
        var json = CommonOptions.Json();
        var command = new Command("info", "Show page size, page counts, free space, file and journal sizes, the last checkpoint and every tree.") { path, json };
        command.SetAction(result => ToolApp.Guard(context, () =>
        {
            using var env = EnvironmentPaths.OpenReadOnly(result.GetValue(path)!);
            var stats = env.GetStatistics();
            using var tx = env.BeginRead();
            var trees = tx.GetTreeNames().Select(name => (Name: name, Tree: tx.OpenTree(name))).ToList();
            if (result.GetValue(json))
            {
                var document = new InfoDocument(env.Directory, stats,
                    trees.Select(t => new InfoTreeDocument(t.Name, t.Tree.Options == TreeOptions.Int64Keys, t.Tree.GetStatistics())).ToList());
                context.Output.WriteLine(JsonSerializer.Serialize(document, ToolJsonContext.Default.InfoDocument));
                return ExitCodes.Success;
            }
            var o = context.Output;
            o.WriteLine($"Environment   {env.Directory}");
            o.WriteLine($"Page size     {Sizes.Count(stats.PageSize)} bytes");
            o.WriteLine($"Data file     {Sizes.Bytes(stats.DataFileBytes)}: {Sizes.Count(stats.PageCount)} pages, {Sizes.Count(stats.FreePages)} free ({Sizes.Bytes(stats.FreePages * stats.PageSize)})");
            o.WriteLine($"Journal       {Sizes.Count(stats.JournalFiles)} file{(stats.JournalFiles == 1 ? "" : "s")}, {Sizes.Bytes(stats.JournalBytes)}");
            o.WriteLine($"Transactions  last committed {stats.LastCommittedTransactionId}, last checkpoint {stats.LastCheckpointTransactionId}");
            o.WriteLine($"Trees         {Sizes.Count(trees.Count)}, {Sizes.Count(trees.Sum(t => t.Tree.Count))} entries");
            if (trees.Count == 0) return ExitCodes.Success;
            o.WriteLine();
            var table = new TextTable("TREE", "ENTRIES", "DEPTH", "BRANCH", "LEAF", "OVERFLOW", "KEYS");
            foreach (var (name, tree) in trees)
            {
                var s = tree.GetStatistics();
                table.Add(name, Sizes.Count(s.EntryCount), s.Depth.ToString(System.Globalization.CultureInfo.InvariantCulture), Sizes.Count(s.BranchPages),
                    Sizes.Count(s.LeafPages), Sizes.Count(s.OverflowPages), tree.Options == TreeOptions.Int64Keys ? "int64" : "bytes");
            }
            table.WriteTo(o);
            return ExitCodes.Success;
        }));
        return command;
    }
}
