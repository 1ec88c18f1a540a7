using System.Diagnostics;
using Xunit.Abstractions;

namespace StorageEngine.Tests.Model;

/// <summary>
/// Random operations against a Safe environment on a memory file system agree, step by step, with a sorted
/// dictionary per tree: through commits, aborts, tree creation and deletion, reopening, process crashes and
/// power losses, and for readers held across commits.
/// </summary>
/// <remarks>
/// STORAGEENGINE_MODEL_SEED runs that seed alone; otherwise a few fixed seeds and one taken from the clock run.
/// STORAGEENGINE_MODEL_OPS sets the number of steps per seed (default 30,000).
/// </remarks>
public sealed class ModelBasedTests
{
    private const int DefaultOperations = 30_000;
    private const string TimeBasedSeed = "time";
    private static readonly int[] FixedSeeds = [1, 20240611, 977];
    private readonly ITestOutputHelper _output;

    public ModelBasedTests(ITestOutputHelper output) => _output = output;

    public static TheoryData<string> Seeds()
    {
        var data = new TheoryData<string>();
        string? fixedSeed = Environment.GetEnvironmentVariable("STORAGEENGINE_MODEL_SEED");
        if (!string.IsNullOrWhiteSpace(fixedSeed))
        {
            data.Add(fixedSeed.Trim());
            return data;
        }
        foreach (int seed in FixedSeeds) data.Add(seed.ToString(System.Globalization.CultureInfo.InvariantCulture));
        data.Add(TimeBasedSeed);
        return data;
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public void Random_operations_match_the_model_through_commits_aborts_reopens_and_crashes(string seedName)
    {
        // The clock seed is drawn when the test runs, not when it is discovered, and printed so it can be replayed.
        int seed = seedName == TimeBasedSeed ? (int)(Stopwatch.GetTimestamp() & int.MaxValue) : int.Parse(seedName, System.Globalization.CultureInfo.InvariantCulture);
        string? configured = Environment.GetEnvironmentVariable("STORAGEENGINE_MODEL_OPS");
        int operations = string.IsNullOrWhiteSpace(configured) ? DefaultOperations : int.Parse(configured, System.Globalization.CultureInfo.InvariantCulture);
        _output.WriteLine($"seed {seed}, {operations} steps (STORAGEENGINE_MODEL_SEED={seed} replays it)");

        var started = Stopwatch.StartNew();
        var run = new ModelRun(seed, operations);
        run.Run();
        _output.WriteLine($"{run.Summary} in {started.ElapsedMilliseconds} ms");
    }
}
