using System.CommandLine;

namespace StorageEngine.Tool;

/// <summary><c>restore</c>: creates an environment from a backup file written by <c>backup</c> (or by an application's BackupAsync).</summary>
internal static class RestoreCommand
{
    public static Command Create(ToolContext context)
    {
        var source = new Argument<string>("file") { Description = "Backup file to read; - reads standard input." };
        var target = new Argument<string>("target") { Description = "New or empty directory for the restored environment." };
        var command = new Command("restore", "Create an environment from a backup; the stream is verified before the data file appears, so a damaged or truncated backup leaves nothing behind.") { source, target };
        command.SetAction((result, cancel) => ToolApp.GuardAsync(context, () =>
        {
            bool quiet = result.GetValue(CommonOptions.Quiet);
            string file = result.GetValue(source)!;
            string directory = Path.GetFullPath(result.GetValue(target)!);
            if (file != "-" && !File.Exists(file)) throw new ToolException($"The backup file '{file}' does not exist.");
            if (File.Exists(directory)) throw new ToolException($"'{result.GetValue(target)}' is a file; give a new or empty directory.");
            if (Directory.Exists(directory) && Directory.EnumerateFileSystemEntries(directory).Any())
                throw new ToolException($"'{result.GetValue(target)}' is not empty; give a new or empty directory.");
            var progress = new BackupProgressReporter(context.Progress("restore", 0, quiet));
            BackupSummary summary;
            try
            {
                // Standard input is not disposed: it stays open for the process.
                using var fileStream = file == "-" ? null : new FileStream(file, FileMode.Open, FileAccess.Read, FileShare.Read, 1 << 20);
                var stream = fileStream ?? context.OpenStandardInput();
                summary = StorageEnvironment.RestoreAsync(stream, directory, progress, cancel).GetAwaiter().GetResult();
            }
            catch (CorruptionException e)
            {
                throw new ToolException($"'{file}' is not a complete, undamaged backup: {e.Problem}");
            }
            finally
            {
                progress.Complete();
            }
            context.Output.WriteLine($"Restored transaction {summary.TransactionId} ({Sizes.Count(summary.PagesCopied)} pages) into {directory}.");
            CheckReport check;
            using (var env = EnvironmentPaths.OpenReadOnly(directory)) check = env.Check();
            return ToolApp.ReportTargetCheck(context, check);
        }));
        return command;
    }
}
