using System.CommandLine;
using System.Globalization;
using System.Text.Json;

namespace StorageEngine.Tool;

/// <summary><c>stats</c>: scans every entry for key and value sizes and how full the pages are.</summary>
internal static class StatsCommand
{
    public static Command Create(ToolContext context)
    {
        var path = CommonOptions.EnvironmentPath();
        var json = CommonOptions.Json();
        var command = new Command("stats", "Scan every tree: key and value sizes (min, average, max), pages by kind and how full they are.") { path, json };
        command.SetAction((result, cancel) => ToolApp.GuardAsync(context, () =>
        {
            using var env = EnvironmentPaths.OpenReadOnly(result.GetValue(path)!);
            using var tx = env.BeginRead();
            var names = tx.GetTreeNames();
            var progress = context.Progress("stats", names.Sum(n => tx.OpenTree(n).Count), result.GetValue(CommonOptions.Quiet));
            var rows = new List<TreeSizes>();
            long done = 0;
            foreach (var name in names)
            {
                var tree = tx.OpenTree(name);
                var s = tree.GetStatistics();
                long keyMin = long.MaxValue, keyMax = 0, keyBytes = 0, valueMin = long.MaxValue, valueMax = 0, valueBytes = 0;
                using var cursor = tree.CreateCursor();
                for (bool more = cursor.First(); more; more = cursor.Next())
                {
                    int k = cursor.Key.Length, v = cursor.Value.Length;
                    (keyMin, keyMax, keyBytes) = (Math.Min(keyMin, k), Math.Max(keyMax, k), keyBytes + k);
                    (valueMin, valueMax, valueBytes) = (Math.Min(valueMin, v), Math.Max(valueMax, v), valueBytes + v);
                    progress.Report(++done);
                    if ((done & 4095) == 0) cancel.ThrowIfCancellationRequested();
                }
                long pages = s.BranchPages + s.LeafPages + s.OverflowPages;
                double fill = pages == 0 ? 0 : (double)(keyBytes + valueBytes) / (pages * env.PageSize);
                rows.Add(new TreeSizes(name, s.EntryCount, s.Depth, s.BranchPages, s.LeafPages, s.OverflowPages,
                    s.EntryCount == 0 ? 0 : keyMin, keyMax, keyBytes, s.EntryCount == 0 ? 0 : valueMin, valueMax, valueBytes, fill));
            }
            progress.Complete();
            var stats = env.GetStatistics();
            if (result.GetValue(json))
            {
                context.Output.WriteLine(JsonSerializer.Serialize(new StatsDocument(stats, rows), ToolJsonContext.Default.StatsDocument));
                return ExitCodes.Success;
            }
            var table = new TextTable("TREE", "ENTRIES", "KEY MIN/AVG/MAX", "VALUE MIN/AVG/MAX", "PAYLOAD", "PAGES B/L/O", "DEPTH", "FILL");
            foreach (var r in rows)
            {
                table.Add(r.Name, Sizes.Count(r.Entries), Spread(r.KeyMin, r.KeyBytes, r.KeyMax, r.Entries), Spread(r.ValueMin, r.ValueBytes, r.ValueMax, r.Entries),
                    Sizes.Bytes(r.KeyBytes + r.ValueBytes), $"{Sizes.Count(r.BranchPages)}/{Sizes.Count(r.LeafPages)}/{Sizes.Count(r.OverflowPages)}",
                    r.Depth.ToString(CultureInfo.InvariantCulture), Sizes.Percent(r.Fill));
            }
            table.WriteTo(context.Output, "");
            long treePages = rows.Sum(r => r.BranchPages + r.LeafPages + r.OverflowPages);
            context.Output.WriteLine();
            context.Output.WriteLine($"Pages: {Sizes.Count(stats.PageCount)} in the data file: {Sizes.Count(treePages)} in named trees, {Sizes.Count(stats.FreePages)} free, " +
                $"{Sizes.Count(stats.PageCount - treePages - stats.FreePages)} for headers, free-space bitmaps and the tree of names.");
            return ExitCodes.Success;
        }));
        return command;
    }

    private static string Spread(long min, long total, long max, long count) =>
        count == 0 ? "-" : string.Create(CultureInfo.InvariantCulture, $"{min}/{(double)total / count:0.#}/{max}");
}
