using System.Collections.Concurrent;
using System.Globalization;
using System.Text.RegularExpressions;
using Xunit.Abstractions;

namespace StorageEngine.Tests.Fuzz;

/// <summary>
/// Damaged files never crash the engine: whatever seeded mutation hits an environment's data file or journal
/// (flipped bits, truncation, zeroed or random ranges, valid pages of another environment or of an earlier
/// version, lost or duplicated journal files, swapped headers), opening it, reading everything, checking it,
/// committing and reopening either work or fail with a <see cref="CorruptionException"/> that names one of its
/// files and an offset in it: no other exception, and no hang.
/// </summary>
/// <remarks>
/// STORAGEENGINE_FUZZ_CASES sets how many cases run (default 300), STORAGEENGINE_FUZZ_FIRST_SEED the first
/// seed (default 1), and STORAGEENGINE_FUZZ_SEED reruns one case; STORAGEENGINE_FUZZ_VERBOSE lists the kinds of
/// corruption reported. If the test host dies (an access violation cannot be caught), narrow the failing seed
/// down with smaller ranges.
/// </remarks>
public sealed class EnvironmentFileFuzzTests(ITestOutputHelper output)
{
    private const int DefaultCases = 300;
    private static readonly TimeSpan CaseTimeout = TimeSpan.FromSeconds(10);

    [Fact]
    public void Damaged_files_open_and_work_or_report_corruption_of_a_named_file()
    {
        var seeds = Seeds();
        foreach (int donor in MutationPlanner.DonorSeeds) FuzzCase.Donor(donor);

        var results = new ConcurrentBag<FuzzCaseResult>();
        var hung = new ConcurrentBag<int>();
        using var stop = new CancellationTokenSource();
        var started = System.Diagnostics.Stopwatch.StartNew();
        try
        {
            Parallel.ForEach(seeds, new ParallelOptions { MaxDegreeOfParallelism = Math.Clamp(Environment.ProcessorCount, 1, 8), CancellationToken = stop.Token }, seed =>
            {
                var run = Task.Factory.StartNew(() => FuzzCase.Run(seed), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
                if (run.Wait(CaseTimeout)) results.Add(run.Result);
                else
                {
                    // The stuck thread cannot be stopped; report the seed and run no more cases.
                    hung.Add(seed);
                    stop.Cancel();
                }
            });
        }
        catch (OperationCanceledException) when (!hung.IsEmpty)
        {
        }

        var failures = results.Where(r => r.Failure is not null).OrderBy(r => r.Seed).ToList();
        output.WriteLine(Summary(results, started.Elapsed));
        foreach (var failure in failures.Take(20)) output.WriteLine(failure.ToString());
        if (Environment.GetEnvironmentVariable("STORAGEENGINE_FUZZ_VERBOSE") is not null) output.WriteLine(CorruptionKinds(results));

        Assert.True(hung.IsEmpty, $"A case ran longer than {CaseTimeout.TotalSeconds} s: "
            + string.Join(Environment.NewLine, hung.Order().Select(seed => FuzzCase.Describe(seed).ToString())));
        Assert.True(failures.Count == 0,
            $"{failures.Count} of {results.Count} cases ended in something other than success or a CorruptionException naming the file:"
            + Environment.NewLine + string.Join(Environment.NewLine, failures.Take(10)));
        Assert.Equal(seeds.Count, results.Count);
    }

    private static List<int> Seeds()
    {
        if (ReadInt("STORAGEENGINE_FUZZ_SEED") is int single) return [single];
        int first = ReadInt("STORAGEENGINE_FUZZ_FIRST_SEED") ?? 1;
        int count = ReadInt("STORAGEENGINE_FUZZ_CASES") ?? DefaultCases;
        return Enumerable.Range(first, count).ToList();
    }

    private static int? ReadInt(string variable) =>
        int.TryParse(Environment.GetEnvironmentVariable(variable), NumberStyles.Integer, CultureInfo.InvariantCulture, out int value) ? value : null;

    /// <summary>How many cases ended in each kind of corruption report (numbers masked), with an example seed: what the engine detects, and where.</summary>
    private static string CorruptionKinds(IEnumerable<FuzzCaseResult> results) => string.Join(Environment.NewLine, results
        .Where(r => r.Corruption is not null)
        .GroupBy(r => $"{r.Phase} (check {(r.Healthy is null ? "not run" : r.Healthy.Value ? "healthy" : "found problems")}): {Regex.Replace(r.Corruption!.Problem, "[0-9A-F]{4,}|[0-9]+", "#")}")
        .OrderBy(g => g.Key, StringComparer.Ordinal)
        .Select(g => $"{g.Count(),6} {g.Key} (e.g. seed {g.Min(r => r.Seed)})"));

    private static string Summary(IReadOnlyCollection<FuzzCaseResult> results, TimeSpan elapsed)
    {
        var byKind = results.SelectMany(r => r.Mutations).GroupBy(m => m.Kind).OrderBy(g => g.Key).Select(g => $"{g.Key} {g.Count()}");
        var byEnd = results.GroupBy(r => r.Failure is not null ? "FAILED in " + r.Phase : r.Corruption is not null ? "corruption in " + r.Phase : r.Healthy == false ? "worked, check found problems" : "worked")
            .OrderBy(g => g.Key).Select(g => $"{g.Key}: {g.Count()}");
        return $"{results.Count} cases in {elapsed.TotalSeconds:0.0} s. Outcomes: {string.Join(", ", byEnd)}. Mutations: {string.Join(", ", byKind)}.";
    }
}
