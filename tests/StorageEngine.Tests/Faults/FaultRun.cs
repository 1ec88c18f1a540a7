namespace StorageEngine.Tests.Faults;

/// <summary>
/// Runs a <see cref="FaultWorkload"/> on a <see cref="FaultyFileSystem"/> the way a careful application would:
/// a failed operation is noted, reads must still show the last acknowledged commit, writes go on if the
/// environment still takes them and otherwise it is reopened; a crash ends the process, the power goes, and
/// the environment is reopened. Every reopen checks that the environment holds the acknowledged commits plus,
/// at most, the one commit in doubt, whole; the final one also runs <see cref="StorageEnvironment.Check"/>.
/// Violations throw with the fault and the step in the message.
/// </summary>
internal sealed class FaultRun
{
    private readonly FaultyFileSystem _fileSystem;
    private readonly FaultWorkload _workload;
    private readonly StorageEnvironmentOptions _options;
    private readonly Random _random;
    private readonly List<string> _log = new();
    private StorageEnvironment? _environment;

    public FaultRun(FaultyFileSystem fileSystem, FaultWorkload workload, int seed)
    {
        _fileSystem = fileSystem;
        _workload = workload;
        _options = FaultWorkload.Options(fileSystem);
        _random = new Random(seed);
    }

    /// <summary>What the acknowledged commits leave.</summary>
    public EnvironmentModel Acknowledged { get; private set; } = new();

    /// <summary>Acknowledged plus the commit that failed, while its outcome is unknown.</summary>
    public EnvironmentModel? InDoubt { get; private set; }

    /// <summary>Operations that threw because of the fault, by operation and exception type.</summary>
    public Dictionary<string, int> Failures { get; } = new();

    /// <summary>Commits that threw but were found whole after reopening.</summary>
    public int InDoubtKept { get; private set; }

    /// <summary>Reopens forced by an environment that refused further writes.</summary>
    public int ForcedReopens { get; private set; }

    /// <summary>
    /// The whole case: open, the commits with a checkpoint, close; then the power goes (dropping, keeping, tearing
    /// and reordering unsynced writes at random), and the last open must find every acknowledged commit and a
    /// healthy environment.
    /// </summary>
    public void Run()
    {
        try
        {
            if (OpenOrCrash())
            {
                for (int k = 1; k <= _workload.Commits && !_fileSystem.HasCrashed; k++)
                {
                    CommitStep(k);
                    if (k == _workload.CheckpointAfter && !_fileSystem.HasCrashed) CheckpointStep();
                }
                if (_fileSystem.HasCrashed) _environment!.SimulateCrash();
                else
                {
                    _log.Add("close");
                    _environment!.Dispose();
                }
            }
            _fileSystem.LosePower(_random, tearWrites: true, reorderWrites: _random.Next(2) == 0, scatterTears: _random.Next(2) == 0);
            _log.Add("power loss");
            Reopen(check: true);
            _environment!.Dispose();
        }
        catch (Exception e) when (e is not Xunit.Sdk.XunitException)
        {
            throw new Xunit.Sdk.XunitException($"{Describe()}: unexpected {e.GetType().Name}: {e}");
        }
    }

    public string Describe() => $"[{_fileSystem.LastFault ?? "no fault fired"}; steps: {string.Join(", ", _log.TakeLast(6))}]";

    /// <summary>Opens the environment; a fault while opening fails the open, and the next open must work. False after a crash.</summary>
    private bool OpenOrCrash()
    {
        _log.Add("open");
        try
        {
            _environment = StorageEnvironment.Open(_options);
            return true;
        }
        catch (Exception e) when (IsStorageFailure(e))
        {
            Note("open", e);
            if (_fileSystem.HasCrashed) return false;
            _fileSystem.Clear();
            Reopen(check: false);
            return true;
        }
    }

    private void CommitStep(int k)
    {
        _log.Add($"commit {k}");
        try
        {
            using (var transaction = _environment!.BeginWrite())
            {
                _workload.Apply(transaction, k);
                transaction.Commit();
            }
            Acknowledged = _workload.Apply(Acknowledged, k);
            InDoubt = null;
        }
        catch (Exception e) when (IsStorageFailure(e))
        {
            Note("commit", e);
            InDoubt = _workload.Apply(Acknowledged, k);
            if (!_fileSystem.HasCrashed) AfterFailure();
        }
    }

    private void CheckpointStep()
    {
        _log.Add("checkpoint");
        try
        {
            _environment!.Checkpoint();
            _environment.PrepareJournal();
        }
        catch (Exception e) when (IsStorageFailure(e))
        {
            Note("checkpoint", e);
            if (!_fileSystem.HasCrashed) AfterFailure();
        }
    }

    /// <summary>
    /// After a failed operation: readers see the last acknowledged commit, and the next writer either starts
    /// (the failed commit then never happened) or is refused with a StorageException that says to reopen.
    /// </summary>
    private void AfterFailure()
    {
        _fileSystem.Clear();
        Expect(Acknowledged.Difference(_environment!), "reads after the failure");
        try
        {
            _environment!.BeginWrite(TimeSpan.FromSeconds(10)).Dispose();
            InDoubt = null;
        }
        catch (StorageException e)
        {
            if (!e.Message.Contains("reopen", StringComparison.OrdinalIgnoreCase))
                throw new Xunit.Sdk.XunitException($"{Describe()}: a refused writer was told '{e.Message}', which does not say to reopen.");
            ForcedReopens++;
            _environment!.Dispose();
            Reopen(check: false);
        }
    }

    /// <summary>Opens again (no fault armed) and settles the commit in doubt from what recovery found.</summary>
    private void Reopen(bool check)
    {
        _log.Add("reopen");
        _environment = StorageEnvironment.Open(_options);
        string? difference = Acknowledged.Difference(_environment);
        if (difference is not null && InDoubt is not null && InDoubt.Difference(_environment) is null)
        {
            Acknowledged = InDoubt;
            InDoubtKept++;
            difference = null;
        }
        InDoubt = null;
        Expect(difference, $"recovery (expected the {Acknowledged})");
        if (check)
        {
            var report = _environment.Check();
            if (!report.IsHealthy) throw new Xunit.Sdk.XunitException($"{Describe()}: Check found {string.Join("; ", report.Problems)}");
        }
    }

    private void Expect(string? difference, string where)
    {
        if (difference is not null) throw new Xunit.Sdk.XunitException($"{Describe()}: {where}: {difference}");
    }

    private void Note(string operation, Exception e)
    {
        string key = $"{operation}: {e.GetType().Name}";
        Failures[key] = Failures.GetValueOrDefault(key) + 1;
        _log.Add($"{operation} threw {e.GetType().Name}");
    }

    /// <summary>The exceptions a file fault may surface as: the engine's StorageException (incl. CorruptionException is not one: damage is a bug here) or a bare IOException.</summary>
    private bool IsStorageFailure(Exception e) =>
        _fileSystem.HasFired && e is IOException || (e is StorageException && e is not CorruptionException);
}
