using System.CommandLine;

namespace StorageEngine.Tool;

/// <summary><c>check</c>: verifies every invariant of the files; exit code 2 when something is wrong.</summary>
internal static class CheckCommand
{
    public static Command Create(ToolContext context)
    {
        var path = CommonOptions.EnvironmentPath();
        var command = new Command("check", "Verify checksums, key order and page accounting of every tree and the free-space map. Exit code 2 when problems are found.") { path };
        command.SetAction((result, cancel) => ToolApp.GuardAsync(context, () =>
        {
            using var env = EnvironmentPaths.OpenReadOnly(result.GetValue(path)!);
            bool quiet = result.GetValue(CommonOptions.Quiet);
            if (!quiet) context.Error.WriteLine($"Checking {env.Directory} ...");
            var progress = new CheckProgressReporter(context.Progress("check", 0, quiet));
            CheckReport report;
            try
            {
                report = env.Check(progress, cancel);
            }
            catch (CorruptionException e)
            {
                progress.Complete();
                context.Output.WriteLine($"1 problem: {e.Message}");
                return ExitCodes.Unhealthy;
            }
            progress.Complete();
            if (report.IsHealthy)
            {
                context.Output.WriteLine($"healthy: {Sizes.Count(report.TreeCount)} trees, {Sizes.Count(report.EntryCount)} entries, " +
                    $"{Sizes.Count(report.PagesInUse)} pages in use, {Sizes.Count(report.FreePages)} free of {Sizes.Count(report.PageCount)}");
                return ExitCodes.Success;
            }
            var groups = ProblemGroups.Of(report.Problems);
            int effects = groups.Sum(g => g.Effects.Count);
            context.Output.WriteLine($"{groups.Count} problem{(groups.Count == 1 ? "" : "s")}" +
                (effects == 0 ? ":" : $", with {effects} knock-on effect{(effects == 1 ? "" : "s")} listed under {(groups.Count == 1 ? "it" : "their cause")}:"));
            foreach (var group in groups)
            {
                context.Output.WriteLine("  " + group.Cause);
                foreach (var effect in group.Effects) context.Output.WriteLine("    then: " + effect);
            }
            return ExitCodes.Unhealthy;
        }));
        return command;
    }
}
