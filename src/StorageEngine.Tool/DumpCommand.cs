using System.CommandLine;
using System.Text;

namespace StorageEngine.Tool;

/// <summary><c>dump</c>: every entry of some or all trees as JSON lines, from one consistent snapshot.</summary>
internal static class DumpCommand
{
    public static Command Create(ToolContext context)
    {
        var path = CommonOptions.EnvironmentPath();
        var trees = new Option<string[]>("--tree", "-t") { Description = "A tree to dump (repeatable); default all." };
        var output = new Option<string?>("--output", "-o") { Description = "File to write; default standard output." };
        var encoding = CommonOptions.Encoding();
        var command = new Command("dump", "Write trees as JSON lines {\"tree\",\"key\",\"value\"} from one snapshot.") { path, trees, output, encoding };
        command.SetAction((result, cancel) => ToolApp.GuardAsync(context, () =>
        {
            using var env = EnvironmentPaths.OpenReadOnly(result.GetValue(path)!);
            using var tx = env.BeginRead();
            var all = tx.GetTreeNames();
            var selected = result.GetValue(trees) is { Length: > 0 } chosen ? chosen : all.ToArray();
            foreach (var name in selected)
            {
                if (!all.Contains(name))
                    throw new ToolException($"The environment has no tree named '{name}'. Its trees: {(all.Count == 0 ? "none" : string.Join(", ", all))}.");
            }
            long total = selected.Sum(name => tx.OpenTree(name).Count);
            string? file = result.GetValue(output);
            using var fileWriter = file is null ? null : new StreamWriter(file, append: false, new UTF8Encoding(false));
            var writer = fileWriter ?? context.Output;
            var progress = context.Progress("dump", total, result.GetValue(CommonOptions.Quiet));
            long done = 0;
            using (var dump = new DumpWriter(writer, result.GetValue(encoding)))
            {
                foreach (var name in selected)
                {
                    var tree = tx.OpenTree(name);
                    bool int64Keys = tree.Options == TreeOptions.Int64Keys;
                    dump.WriteTree(name, tree.Options);
                    using var cursor = tree.CreateCursor();
                    for (bool more = cursor.First(); more; more = cursor.Next())
                    {
                        dump.WriteEntry(name, int64Keys, cursor.Key, cursor.Value);
                        progress.Report(++done);
                        if ((done & 4095) == 0) cancel.ThrowIfCancellationRequested();
                    }
                }
            }
            writer.Flush();
            progress.Complete();
            if (!result.GetValue(CommonOptions.Quiet))
                context.Error.WriteLine($"Dumped {Sizes.Count(done)} entries of {Sizes.Count(selected.Length)} trees (transaction {tx.SnapshotId}){(file is null ? "" : $" to {file}")}.");
            return ExitCodes.Success;
        }));
        return command;
    }
}
