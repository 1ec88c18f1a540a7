using System.CommandLine;

namespace StorageEngine.Tool;

/// <summary><c>compact</c>: rewrites an environment into a fresh, dense one and reports the sizes before and after.</summary>
internal static class CompactCommand
{
    public static Command Create(ToolContext context)
    {
        var source = CommonOptions.EnvironmentPath("Directory of the environment to compact.");
        var target = new Argument<string>("target") { Description = "New or empty directory for the compacted environment." };
        var pageSize = new Option<int?>("--page-size") { Description = "Page size of the new environment (a power of two, 4096 to 32768); default the source's." };
        var command = new Command("compact", "Copy every tree into a fresh environment with no free pages; the source is left as it is.") { source, target, pageSize };
        command.SetAction((result, cancel) => ToolApp.GuardAsync(context, () =>
        {
            bool quiet = result.GetValue(CommonOptions.Quiet);
            var copy = EnvironmentCopier.Copy(result.GetValue(source)!, result.GetValue(target)!, result.GetValue(pageSize),
                total => context.Progress("compact", total, quiet), cancel);
            var o = context.Output;
            var before = copy.Before;
            o.WriteLine($"Compacted {Sizes.Count(copy.Entries)} entries in {Sizes.Count(copy.Trees)} trees (transaction {copy.SnapshotId}) into {Path.GetFullPath(result.GetValue(target)!)}.");
            o.WriteLine($"  before  data file {Sizes.Bytes(before.DataFileBytes)} ({Sizes.Count(before.PageCount)} pages, {Sizes.Count(before.FreePages)} free), journal {Sizes.Bytes(before.JournalBytes)}");
            o.WriteLine($"  after   data file {Sizes.Bytes(copy.DataFileBytes)}, journal {Sizes.Bytes(copy.JournalBytes)}");
            long saved = before.DataFileBytes - copy.DataFileBytes;
            if (saved > 0)
                o.WriteLine($"  saved   {Sizes.Bytes(saved)} of the data file ({Sizes.Percent((double)saved / before.DataFileBytes)})");
            else
                o.WriteLine($"  saved   nothing: the source was already dense{(saved < 0 ? $" (the copy's data file is {Sizes.Bytes(-saved)} larger)" : "")}");
            return ToolApp.ReportTargetCheck(context, copy.TargetCheck);
        }));
        return command;
    }
}
