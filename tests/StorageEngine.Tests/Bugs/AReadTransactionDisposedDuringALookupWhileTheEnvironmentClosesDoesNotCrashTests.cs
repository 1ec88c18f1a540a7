using StorageEngine.Tests.Crash;
using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// A read transaction disposed on another thread while one of its lookups runs (misuse reachable from safe C#),
/// with the environment closed right after, must not crash the process: the lookup is told
/// <see cref="ObjectDisposedException"/>. The close once unmapped the data file under the lookup as soon as the
/// disposed transaction had given back its reader slot, and the process died of SIGSEGV within a few rounds. The
/// rounds run in a child process (StorageEngine.CrashChild's read-dispose-race), so that a crash fails this test
/// and not the test run.
/// </summary>
public sealed class AReadTransactionDisposedDuringALookupWhileTheEnvironmentClosesDoesNotCrashTests : IDisposable
{
    private const int Rounds = 60;
    private static readonly TimeSpan Timeout = TimeSpan.FromMinutes(3);
    private readonly TempDirectory _dir = new("read-dispose-race");

    public void Dispose() => _dir.Dispose();

    [Fact]
    public void Lookups_racing_the_dispose_of_their_transaction_and_the_close_are_told_it_ended_and_the_process_lives()
    {
        using var child = CrashChildProcess.Start(["read-dispose-race", _dir.Path, Rounds.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
        if (!child.WaitForCommits(Rounds, Timeout)) throw child.NotReached($"finish {Rounds} rounds", Timeout);
        // The race was run, not missed: most rounds dispose while a lookup of 100,000 keys runs.
        string report = "";
        for (var waited = System.Diagnostics.Stopwatch.StartNew(); waited.Elapsed < Timeout; Thread.Sleep(10))
        {
            report = child.StandardError;
            if (report.Contains(" rounds", StringComparison.Ordinal)) break;
        }
        var during = System.Text.RegularExpressions.Regex.Match(report, @"disposed during a lookup in (\d+) of");
        Assert.True(during.Success, $"no report from the child: {report}");
        Assert.True(int.Parse(during.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture) > 0, report);
        child.Kill();
    }
}
