namespace StorageEngine.Tests.Fuzz;

/// <summary>What one fuzz case did and how it ended.</summary>
internal sealed class FuzzCaseResult
{
    public required int Seed { get; init; }

    /// <summary>How the environment was built.</summary>
    public string Story { get; set; } = "";

    public List<FileMutation> Mutations { get; set; } = [];

    /// <summary>The step the case was in when it ended: open, read, check, commit, reopen, reread, done.</summary>
    public string Phase { get; set; } = "build";

    /// <summary>The corruption the engine reported, when it did.</summary>
    public CorruptionException? Corruption { get; set; }

    /// <summary>Whether Check() found the environment healthy (null when it did not run).</summary>
    public bool? Healthy { get; set; }

    /// <summary>An outcome the engine must never produce: any other exception, a bad corruption report, a hang.</summary>
    public string? Failure { get; set; }

    public override string ToString() =>
        $"seed {Seed} (rerun with STORAGEENGINE_FUZZ_SEED={Seed}); environment: {Story}; mutations: [{string.Join("; ", Mutations)}]; ended in {Phase}"
        + (Failure is null ? "" : $"{Environment.NewLine}  {Failure}");
}
