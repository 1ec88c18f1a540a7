using System.CommandLine;

namespace StorageEngine.Tool;

/// <summary><c>check</c>: verifies every invariant of the files; exit code 2 when something is wrong.</summary>
internal static class CheckCommand
{
    public static Command Create(ToolContext context)
    {
        var path = CommonOptions.EnvironmentPath();
        var command = new Command("check", "Verify checksums, key order and page accounting of every tree and the free-space map. Exit code 2 when problems are found.") { path };
        command.SetAction(result => ToolApp.Guard(context, () =>
        {
            using var env = EnvironmentPaths.OpenReadOnly(result.GetValue(path)!);
            if (!result.GetValue(CommonOptions.Quiet)) context.Error.WriteLine($"Checking {env.Directory} ...");
            CheckReport report;
            try
            {
                report = env.Check();
            }
            catch (CorruptionException e)
            {
                context.Output.WriteLine($"1 problem: {e.Message}");
                return ExitCodes.Unhealthy;
            }
            if (report.IsHealthy)
            {
                context.Output.WriteLine($"healthy: {Sizes.Count(report.TreeCount)} trees, {Sizes.Count(report.EntryCount)} entries, " +
                    $"{Sizes.Count(report.PagesInUse)} pages in use, {Sizes.Count(report.FreePages)} free of {Sizes.Count(report.PageCount)}");
                return ExitCodes.Success;
            }
            context.Output.WriteLine($"{report.Problems.Count} problem{(report.Problems.Count == 1 ? "" : "s")}:");
            foreach (var problem in report.Problems) context.Output.WriteLine("  " + problem);
            return ExitCodes.Unhealthy;
        }));
        return command;
    }
}
