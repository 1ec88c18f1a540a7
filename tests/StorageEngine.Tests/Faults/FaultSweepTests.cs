using System.Diagnostics;
using StorageEngine.Platform;
using Xunit.Abstractions;

namespace StorageEngine.Tests.Faults;

/// <summary>
/// In the style of redb's crash-after-N-writes: a short workload (open, commits of mixed sizes with an overflow
/// value, file growth, a journal file switch, a tree created and deleted, a checkpoint, close) is run once to
/// count its writes, syncs and file growths; then, for every position N of each, once with that call failing
/// (EIO, a short write, bytes landed then EIO, ENOSPC, in turn) and once with the process dying in it and the
/// power going. Whatever happens, the failed operation throws a StorageException or IOException, reads keep
/// showing the last acknowledged commit, writes go on or ask for a reopen, and after the power loss every
/// acknowledged commit is there, nothing partial, and the environment checks healthy.
/// </summary>
/// <remarks>
/// By default every position of the 30-commit workload is swept (about 110 writes, 12 or 42 syncs, 4 growths, 7
/// directory changes), capped at an even spread of 150 positions per operation should the workload grow.
/// STORAGEENGINE_FAULT_SWEEP=full sweeps every position of a 150-commit workload, four times with different seeds
/// (each fault kind in turn at every write position; different landings, keeps, tears and orders after a crash).
/// </remarks>
public sealed class FaultSweepTests(ITestOutputHelper output)
{
    private static readonly bool Full = string.Equals(Environment.GetEnvironmentVariable("STORAGEENGINE_FAULT_SWEEP"), "full", StringComparison.OrdinalIgnoreCase);

    /// <summary>Runs per position, each with its own seed: one by default, four in the full sweep.</summary>
    private static readonly int SeedsPerPosition = Full ? 4 : 1;

    /// <summary>Positions tried per operation by default; the short workload has fewer, so all of them run.</summary>
    private const int DefaultPositionsPerOperation = 150;

    public static TheoryData<bool> JournalModes => new() { false, true };

    [Theory]
    [MemberData(nameof(JournalModes))]
    public void Every_failed_write_sync_or_growth_keeps_every_acknowledged_commit(bool bufferedJournal) =>
        Sweep(bufferedJournal, crash: false);

    [Theory]
    [MemberData(nameof(JournalModes))]
    public void A_crash_at_every_write_sync_or_growth_followed_by_power_loss_keeps_every_acknowledged_commit(bool bufferedJournal) =>
        Sweep(bufferedJournal, crash: true);

    private void Sweep(bool bufferedJournal, bool crash)
    {
        var workload = new FaultWorkload(Full ? 150 : 30);
        var counting = new FaultyFileSystem(new MemoryFileSystem(), bufferedJournal);
        new FaultRun(counting, workload, seed: 0).Run();
        var watch = Stopwatch.StartNew();
        int cases = 0, fired = 0, inDoubtKept = 0, reopens = 0;
        var failures = new Dictionary<string, int>();
        // A process does not die in a read; a failed read only fails the open that does it.
        var operations = crash
            ? new[] { FileOperation.Write, FileOperation.Sync, FileOperation.Growth, FileOperation.DirectoryChange }
            : new[] { FileOperation.Write, FileOperation.Sync, FileOperation.Growth, FileOperation.DirectoryChange, FileOperation.Read };
        foreach (var operation in operations)
        {
            // The counting run's calls up to its final reopen; later positions would never fire.
            int count = counting.Count(operation);
            foreach (int position in Positions(count))
            {
                for (int seed = 0; seed < SeedsPerPosition; seed++)
                {
                    // The seed decides what of a crashed call lands and what the power loss keeps, tears and reorders.
                    var kind = crash ? FaultKind.Crash : FailureKind(operation, position + seed);
                    var fileSystem = new FaultyFileSystem(new MemoryFileSystem(), bufferedJournal, seed: position + 1000 * seed);
                    fileSystem.Arm(new Fault(operation, position, kind));
                    var run = new FaultRun(fileSystem, workload, seed: position * 31 + (int)operation + 1000 * seed);
                    run.Run();
                    cases++;
                    if (fileSystem.HasFired) fired++;
                    inDoubtKept += run.InDoubtKept;
                    reopens += run.ForcedReopens;
                    foreach (var (key, n) in run.Failures) failures[key] = failures.GetValueOrDefault(key) + n;
                }
            }
            output.WriteLine($"{operation}: {count} calls in the workload");
        }
        output.WriteLine($"{cases} cases ({fired} faults fired) in {watch.Elapsed.TotalSeconds:0.0} s; {reopens} forced reopens; " +
            $"{inDoubtKept} failed commits found whole after reopening; failures: {string.Join(", ", failures.OrderBy(f => f.Key).Select(f => $"{f.Key} ×{f.Value}"))}");
        // Every position before the final reopen's own calls lies on the faulted run's path too.
        Assert.True(fired >= cases * 3 / 4, $"only {fired} of {cases} planned faults fired");
    }

    /// <summary>Every position when they are few (or the sweep is full), else an even spread that includes both ends.</summary>
    private static IEnumerable<int> Positions(int count)
    {
        if (Full || count <= DefaultPositionsPerOperation) return Enumerable.Range(1, count);
        return Enumerable.Range(0, DefaultPositionsPerOperation)
            .Select(i => 1 + (int)((long)i * (count - 1) / (DefaultPositionsPerOperation - 1)))
            .Distinct();
    }

    private static FaultKind FailureKind(FileOperation operation, int position) => operation switch
    {
        FileOperation.Write => (FaultKind)(position % 4),
        FileOperation.Growth or FileOperation.DirectoryChange => position % 2 == 0 ? FaultKind.DiskFull : FaultKind.IOError,
        _ => FaultKind.IOError,
    };
}
