using System.CommandLine;

namespace StorageEngine.Tool;

/// <summary>
/// <c>backup</c>: streams a consistent copy of an environment, as of one transaction, into a backup file through
/// <see cref="StorageEnvironment.BackupAsync(Stream, IProgress{BackupProgress}?, CancellationToken)"/>; <c>restore</c>
/// turns it back into an environment.
/// </summary>
internal static class BackupCommand
{
    public static Command Create(ToolContext context)
    {
        var source = CommonOptions.EnvironmentPath("Directory of the environment to back up.");
        var target = new Argument<string>("file") { Description = "Backup file to create (it must not exist); - writes to standard output." };
        var command = new Command("backup", "Write a consistent, checksummed backup of the environment, as of one transaction, to a file; restore it with 'restore'.") { source, target };
        command.SetAction((result, cancel) => ToolApp.GuardAsync(context, () =>
        {
            bool quiet = result.GetValue(CommonOptions.Quiet);
            string file = result.GetValue(target)!;
            using var env = EnvironmentPaths.OpenReadOnly(result.GetValue(source)!);
            var progress = new BackupProgressReporter(context.Progress("backup", 0, quiet));
            BackupSummary summary;
            if (file == "-")
            {
                // Not disposed: standard output stays open for the process.
                var stdout = context.OpenStandardOutput();
                summary = Write(env, stdout, progress, cancel);
                stdout.Flush();
            }
            else
            {
                string full = Path.GetFullPath(file);
                if (File.Exists(full) || Directory.Exists(full)) throw new ToolException($"'{file}' already exists; give a new file name.");
                // Written beside the target and renamed once complete: an interrupted backup leaves no file that looks whole.
                string partial = full + ".partial";
                try
                {
                    using (var stream = new FileStream(partial, FileMode.CreateNew, FileAccess.Write, FileShare.None, 1 << 20))
                    {
                        summary = Write(env, stream, progress, cancel);
                        stream.Flush(flushToDisk: true);
                    }
                    File.Move(partial, full);
                }
                catch
                {
                    File.Delete(partial);
                    throw;
                }
            }
            progress.Complete();
            // With '-', standard output carries the backup, so the summary goes to standard error.
            var summaryWriter = file == "-" ? context.Error : context.Output;
            summaryWriter.WriteLine($"Backed up transaction {summary.TransactionId}: {Sizes.Count(summary.PagesCopied)} pages of {Sizes.Count(summary.PageSize)} bytes, " +
                $"{Sizes.Bytes(summary.StreamBytes)}{(file == "-" ? "" : $" in {Path.GetFullPath(file)}")}.");
            return ExitCodes.Success;
        }));
        return command;
    }

    private static BackupSummary Write(StorageEnvironment env, Stream destination, IProgress<BackupProgress> progress, CancellationToken cancel) =>
        env.BackupAsync(destination, progress, cancel).GetAwaiter().GetResult();
}
