using System.CommandLine;

namespace StorageEngine.Tool;

/// <summary><c>backup</c>: a consistent copy of an environment, from one snapshot, into a new directory.</summary>
internal static class BackupCommand
{
    public static Command Create(ToolContext context)
    {
        var source = CommonOptions.EnvironmentPath("Directory of the environment to back up.");
        var target = new Argument<string>("target") { Description = "New or empty directory for the backup; open it as an environment to restore." };
        var command = new Command("backup", "Copy every tree, as of one transaction, into a new environment and verify it.") { source, target };
        command.SetAction((result, cancel) => ToolApp.GuardAsync(context, () =>
        {
            bool quiet = result.GetValue(CommonOptions.Quiet);
            var copy = EnvironmentCopier.Copy(result.GetValue(source)!, result.GetValue(target)!, pageSize: null,
                total => context.Progress("backup", total, quiet), cancel);
            context.Output.WriteLine($"Backed up transaction {copy.SnapshotId}: {Sizes.Count(copy.Entries)} entries in {Sizes.Count(copy.Trees)} trees, " +
                $"data file {Sizes.Bytes(copy.DataFileBytes)}, to {Path.GetFullPath(result.GetValue(target)!)}.");
            return ToolApp.ReportTargetCheck(context, copy.TargetCheck);
        }));
        return command;
    }
}
