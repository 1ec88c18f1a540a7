using System.CommandLine;

namespace StorageEngine.Tool;

/// <summary><c>load</c>: puts the entries of a dump into an environment, creating it and its trees as needed.</summary>
internal static class LoadCommand
{
    private const long BatchBytes = 16L << 20;

    public static Command Create(ToolContext context)
    {
        var path = CommonOptions.EnvironmentPath("Directory of the environment to load into; created when missing.");
        var input = new Option<string?>("--input", "-i") { Description = "Dump file to read; default standard input." };
        var encoding = CommonOptions.Encoding();
        var command = new Command("load", "Read JSON lines written by dump and put every entry (existing keys are replaced).") { path, input, encoding };
        command.SetAction((result, cancel) => ToolApp.GuardAsync(context, () =>
        {
            string? file = result.GetValue(input);
            if (file is not null && !File.Exists(file)) throw new ToolException($"The input file '{file}' does not exist.");
            using var reader = file is null ? null : new StreamReader(file);
            var lines = reader ?? context.Input;
            var dumpEncoding = CommonOptions.EncodingOf(result.GetValue(encoding));
            bool quiet = result.GetValue(CommonOptions.Quiet);
            long fileLength = file is null ? 0 : new FileInfo(file).Length;
            var progress = context.Progress("load", 0, quiet);

            using var env = EnvironmentPaths.OpenOrCreate(result.GetValue(path)!);
            var countsBefore = EntryCounts(env);
            var tx = env.BeginWrite();
            var open = new Dictionary<string, Tree>(StringComparer.Ordinal);
            var touched = new HashSet<string>(StringComparer.Ordinal);
            long lineNumber = 0, committedThrough = 0, entries = 0, batch = 0;
            try
            {
                string? line;
                while ((line = lines.ReadLine()) is not null)
                {
                    lineNumber++;
                    if (string.IsNullOrWhiteSpace(line)) continue;
                    try
                    {
                        var parsed = DumpLine.Parse(line, dumpEncoding);
                        var tree = TreeFor(tx, open, parsed);
                        touched.Add(parsed.Tree);
                        if (parsed.Key is null) continue;
                        tree.Put(parsed.Key, parsed.Value);
                    }
                    catch (Exception e) when (e is FormatException or ArgumentException or InvalidOperationException)
                    {
                        string kept = committedThrough == 0 ? "nothing was loaded" : $"lines 1 to {committedThrough} were loaded";
                        throw new ToolException($"Input line {lineNumber}: {e.Message.Split(" (Parameter")[0].TrimEnd('.')} ({kept}).");
                    }
                    entries++;
                    batch += line.Length;
                    progress.Report(entries);
                    if (batch >= BatchBytes)
                    {
                        cancel.ThrowIfCancellationRequested();
                        tx.Commit();
                        committedThrough = lineNumber;
                        tx = env.BeginWrite();
                        open.Clear();
                        batch = 0;
                    }
                }
                tx.Commit();
            }
            finally
            {
                tx.Dispose();
                progress.Complete();
            }
            // What the trees gained, not the lines read: a key put twice, or already present, adds nothing.
            var countsAfter = EntryCounts(env);
            long gained = touched.Sum(name => countsAfter.GetValueOrDefault(name) - countsBefore.GetValueOrDefault(name));
            long replaced = entries - gained;
            context.Output.WriteLine($"Loaded {Sizes.Count(gained)} new entries into {Sizes.Count(touched.Count)} trees from {Sizes.Count(lineNumber)} lines" +
                $"{(file is null ? "" : $" of {file} ({Sizes.Bytes(fileLength)})")}: {Sizes.Count(entries)} entries read" +
                $"{(replaced > 0 ? $", {Sizes.Count(replaced)} of them replaced the value of a key already present" : "")}.");
            return ExitCodes.Success;
        }));
        return command;
    }

    private static Dictionary<string, long> EntryCounts(StorageEnvironment env)
    {
        using var tx = env.BeginRead();
        return tx.GetTreeNames().ToDictionary(name => name, name => tx.OpenTree(name).Count, StringComparer.Ordinal);
    }

    private static Tree TreeFor(WriteTransaction tx, Dictionary<string, Tree> open, DumpLine line)
    {
        if (line.Key is null)
        {
            // A tree line fixes the options: a clash with an existing tree is an error.
            var declared = tx.CreateTree(line.Tree, line.Int64Keys ? TreeOptions.Int64Keys : TreeOptions.None);
            open[line.Tree] = declared;
            return declared;
        }
        if (open.TryGetValue(line.Tree, out var tree)) return tree;
        if (!tx.TryOpenTree(line.Tree, out tree)) tree = tx.CreateTree(line.Tree, line.Int64Keys ? TreeOptions.Int64Keys : TreeOptions.None);
        open[line.Tree] = tree;
        return tree;
    }
}
