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
        var salvage = new Option<bool>("--salvage")
        {
            Description = "Skip damaged pages instead of stopping at the first: dump every entry on a readable page and list each damaged page on standard error (exit code 2 when there is one).",
        };
        var command = new Command("dump", "Write trees as JSON lines {\"tree\",\"key\",\"value\"} from one snapshot.") { path, trees, output, encoding, salvage };
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
            bool salvaging = result.GetValue(salvage);
            bool quiet = result.GetValue(CommonOptions.Quiet);
            var run = new DumpRun(tx, selected, salvaging);
            string? file = result.GetValue(output);
            using var fileWriter = file is null ? null : new StreamWriter(file, append: false, new UTF8Encoding(false));
            var writer = fileWriter ?? context.Output;
            var progress = context.Progress("dump", run.Total, quiet);
            try
            {
                using (var dump = new DumpWriter(writer, CommonOptions.EncodingOf(result.GetValue(encoding))))
                    run.WriteAll(dump, progress, cancel);
                writer.Flush();
            }
            catch (IOException) when (file is null)
            {
                progress.Complete();
                context.Error.WriteLine($"Stopped after {Sizes.Count(run.Done)} of {Sizes.Count(run.Total)} entries: standard output was closed.");
                return ExitCodes.OutputClosed;
            }
            catch (CorruptionException e) when (!salvaging)
            {
                progress.Complete();
                throw new ToolException($"Stopped after {Sizes.Count(run.Done)} of {Sizes.Count(run.Total)} entries at a damaged page ({e.Problem}). " +
                    "--salvage skips damaged pages and dumps everything else.");
            }
            progress.Complete();
            if (!quiet)
                context.Error.WriteLine($"Dumped {Sizes.Count(run.Done)} {(run.Damaged.Count == 0 ? "" : $"of {Sizes.Count(run.Total)} ")}entries of " +
                    $"{Sizes.Count(selected.Length)} trees (transaction {tx.SnapshotId}){(file is null ? "" : $" to {file}")}.");
            if (run.Damaged.Count == 0) return ExitCodes.Success;
            context.Error.WriteLine($"{run.DamagedCount} damaged page{(run.DamagedCount == 1 ? "" : "s")} skipped:");
            foreach (var line in run.Damaged) context.Error.WriteLine("  " + line);
            return ExitCodes.Unhealthy;
        }));
        return command;
    }
}
