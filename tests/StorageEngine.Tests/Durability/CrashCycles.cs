using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// Crash cycles in this process on one environment of <see cref="NumberedTransactions"/>: each cycle opens it,
/// checks that it holds exactly the transactions committed so far, runs the cycle's work, crashes the process
/// (<see cref="StorageEnvironment.SimulateCrash"/>, no clean close) and then runs what follows the crash (power
/// loss, a crash of the file system, disarming a faulty one). A last open checks the contents and
/// <see cref="StorageEnvironment.Check"/>.
/// </summary>
internal static class CrashCycles
{
    /// <summary>Runs the cycles; returns the last transaction the environment holds.</summary>
    /// <param name="work">
    /// Given the open environment and the last transaction it holds, commits (and checkpoints, or crashes the file
    /// system under it) and returns the last transaction that must survive.
    /// </param>
    /// <param name="afterCrash">Runs after the process crashed: takes the power, crashes the file system.</param>
    /// <param name="reopen">
    /// When given, each cycle opens the environment once more after <paramref name="afterCrash"/> and passes it,
    /// with the last transaction <paramref name="work"/> returned, to this check, which returns the last transaction
    /// the environment holds (it may be a recovered commit that was in doubt, or fewer for a tier that loses a
    /// tail); that environment is closed cleanly.
    /// </param>
    public static long Run(StorageEnvironmentOptions options, int cycles, Func<StorageEnvironment, long, long> work, Action afterCrash,
        Func<StorageEnvironment, long, long>? reopen = null)
    {
        long committed = 0;
        for (int cycle = 0; cycle < cycles; cycle++)
        {
            var environment = StorageEnvironment.Open(options);
            AssertExactly(environment, committed);
            committed = work(environment, committed);
            environment.SimulateCrash();
            afterCrash();

            if (reopen is null) continue;
            environment = StorageEnvironment.Open(options);
            committed = reopen(environment, committed);
            environment.Dispose();
        }
        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, committed);
        AssertHealthy(reopened);
        return committed;
    }
}
