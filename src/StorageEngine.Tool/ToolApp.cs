using System.CommandLine;

namespace StorageEngine.Tool;

/// <summary>The command line of the <c>storageengine</c> tool, runnable in-process.</summary>
internal static class ToolApp
{
    /// <summary>Runs the tool; returns the process exit code (see <see cref="ExitCodes"/>).</summary>
    public static int Run(string[] args, TextReader input, TextWriter output, TextWriter error, bool interactive = false, bool handleCtrlC = false,
        Func<Stream>? standardOutput = null, Func<Stream>? standardInput = null)
    {
        var context = new ToolContext(input, output, error, interactive, standardOutput, standardInput);
        var root = new RootCommand("Inspect, verify, recover, export, import, compact, back up and restore StorageEngine environments.")
        {
            InfoCommand.Create(context),
            StatsCommand.Create(context),
            CheckCommand.Create(context),
            DumpCommand.Create(context),
            LoadCommand.Create(context),
            CompactCommand.Create(context),
            BackupCommand.Create(context),
            RestoreCommand.Create(context),
            RecoverCommand.Create(context),
        };
        root.Options.Add(CommonOptions.Quiet);
        var configuration = new InvocationConfiguration
        {
            Output = output,
            Error = error,
            EnableDefaultExceptionHandler = false,
            ProcessTerminationTimeout = handleCtrlC ? TimeSpan.FromSeconds(5) : null,
        };
        return root.Parse(args).Invoke(configuration);
    }

    /// <summary>Runs a command body, turning every failure into one line on standard error and an exit code.</summary>
    public static int Guard(ToolContext context, Func<int> body)
    {
        try
        {
            return body();
        }
        catch (ToolException e)
        {
            return Fail(context, e.Message, e.ExitCode);
        }
        catch (OperationCanceledException)
        {
            return Fail(context, "Cancelled.", ExitCodes.Cancelled);
        }
        catch (Exception e) when (e is StorageException or IOException or UnauthorizedAccessException)
        {
            return Fail(context, e.Message, ExitCodes.Error);
        }
        catch (Exception e)
        {
            return Fail(context, $"Unexpected failure ({e.GetType().Name}): {e.Message}", ExitCodes.Error);
        }
    }

    /// <summary><see cref="Guard"/> for the commands that take Ctrl+C.</summary>
    public static Task<int> GuardAsync(ToolContext context, Func<int> body) => Task.FromResult(Guard(context, body));

    /// <summary>Prints the verification of a compact or backup target; exit code 2 when it is not healthy.</summary>
    public static int ReportTargetCheck(ToolContext context, CheckReport report)
    {
        if (report.IsHealthy)
        {
            context.Output.WriteLine($"  check   healthy ({Sizes.Count(report.PagesInUse)} pages in use)");
            return ExitCodes.Success;
        }
        context.Output.WriteLine($"  check   {report}");
        return ExitCodes.Unhealthy;
    }

    private static int Fail(ToolContext context, string message, int exitCode)
    {
        context.ClearProgress();
        context.Error.WriteLine("error: " + message);
        return exitCode;
    }
}
