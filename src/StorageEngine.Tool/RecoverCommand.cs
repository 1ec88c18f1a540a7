using System.CommandLine;

namespace StorageEngine.Tool;

/// <summary>
/// <c>recover</c>: replays the journal of an environment that was not closed cleanly (a crash, a kill, a power
/// loss) and closes it cleanly, so that the read-only commands can inspect it.
/// </summary>
internal static class RecoverCommand
{
    public static Command Create(ToolContext context)
    {
        var path = CommonOptions.EnvironmentPath("Directory of the environment to recover.");
        var command = new Command("recover", "Replay the journal of an environment that was not closed cleanly, then close it cleanly so that info, check, stats and dump can read it.") { path };
        command.SetAction(result => ToolApp.Guard(context, () =>
        {
            string target = result.GetValue(path)!;
            if (EnvironmentPaths.RecoveryNeeded(target) is not { } reason)
            {
                using var clean = EnvironmentPaths.OpenReadOnly(target);
                context.Output.WriteLine($"Nothing to recover: {clean.Directory} was closed cleanly (last transaction {clean.LastCommittedTransactionId}).");
                return ExitCodes.Success;
            }
            if (!result.GetValue(CommonOptions.Quiet)) context.Error.WriteLine($"Recovering: {reason}");
            long lastTransaction;
            string directory;
            using (var env = EnvironmentPaths.OpenExisting(target))
            {
                lastTransaction = env.LastCommittedTransactionId;
                directory = env.Directory;
                env.Checkpoint();
            }
            // The clean close above is what the read-only commands need; prove it.
            using (EnvironmentPaths.OpenReadOnly(target)) { }
            context.Output.WriteLine($"Recovered {directory}: the journal was replayed up to transaction {lastTransaction}, and the environment was closed cleanly.");
            return ExitCodes.Success;
        }));
        return command;
    }
}
