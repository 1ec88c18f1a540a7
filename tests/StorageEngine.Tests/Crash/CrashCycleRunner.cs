using System.Diagnostics;
using System.Text;
using StorageEngine.CrashChild;

namespace StorageEngine.Tests.Crash;

/// <summary>
/// Kills the crash child over and over on one directory and, after each kill, opens the environment here and
/// checks promise 1 of the design: every acknowledged commit is there, and the content is exactly the state after
/// one transaction j (the last acknowledged one, or one of the commits in flight after it that became durable
/// before its acknowledgement), never a mix.
/// </summary>
internal sealed class CrashCycleRunner
{
    private static readonly TimeSpan ChildTimeout = TimeSpan.FromSeconds(60);
    private readonly string _directory;
    private readonly IReadOnlyList<string> _childOptions;
    private readonly Func<StorageEnvironmentOptions> _verifyOptions;
    private readonly Random _random;
    private readonly int _maxCommitsBeforeKill;
    private readonly int _maxInFlight;
    private readonly SortedDictionary<string, byte[]> _model = new(StringComparer.Ordinal);
    private long _modelTransaction;
    private TimeSpan _inChildren;
    private TimeSpan _verifying;

    /// <param name="maxInFlight">Commits the child may have made past its last acknowledged one (its async depth, or 1).</param>
    public CrashCycleRunner(string directory, IReadOnlyList<string> childOptions, Func<StorageEnvironmentOptions> verifyOptions,
        int seed, int maxCommitsBeforeKill, int maxInFlight = 1)
    {
        _maxInFlight = maxInFlight;
        _directory = directory;
        _childOptions = childOptions;
        _verifyOptions = verifyOptions;
        _random = new Random(seed);
        _maxCommitsBeforeKill = maxCommitsBeforeKill;
    }

    public int Cycles { get; private set; }

    /// <summary>Commits the child acknowledged, over all cycles.</summary>
    public long AcknowledgedCommits { get; private set; }

    /// <summary>Cycles after which the recovered state was a transaction after the last acknowledged one.</summary>
    public int UnacknowledgedCommitsRecovered { get; private set; }

    /// <summary>Cycles in which the child was killed before it reported the environment open.</summary>
    public int KilledBeforeReady { get; private set; }

    /// <summary>The transaction whose state the environment holds now.</summary>
    public long LastTransaction => _modelTransaction;

    public string Summary(TimeSpan elapsed) =>
        $"cycles {Cycles}, acknowledged commits {AcknowledgedCommits}, recovered (unacknowledged commit found durable) " +
        $"{UnacknowledgedCommitsRecovered}, killed before ready {KilledBeforeReady}, final transaction {LastTransaction}, " +
        $"elapsed {elapsed.TotalSeconds:0.0} s ({_inChildren.TotalSeconds:0.0} s running children, {_verifying.TotalSeconds:0.0} s verifying)";

    /// <summary>Time the child of the last cycle took from launch to "ready"; null if it was killed before.</summary>
    public TimeSpan? LastReadyAfter { get; private set; }

    /// <summary>
    /// Runs one cycle: kills at a random moment, or at <paramref name="forcedMoment"/> (with
    /// <paramref name="launchDelayMs"/> for <see cref="KillMoment.AfterLaunchDelay"/>) when given.
    /// </summary>
    public void RunCycle(KillMoment? forcedMoment = null, int? launchDelayMs = null)
    {
        var moment = (KillMoment)_random.Next(3);
        if (_random.Next(10) < 5) moment = KillMoment.AfterCommits;
        int delayMs = _random.Next(0, 301);
        moment = forcedMoment ?? moment;
        delayMs = launchDelayMs ?? delayMs;
        int commitsBeforeKill = _random.Next(1, _maxCommitsBeforeKill + 1);
        int spinMicroseconds = _random.Next(2) == 0 ? 0 : _random.Next(0, 2000);
        bool crashVerifier = _random.Next(2) == 0;
        string plan = moment switch
        {
            KillMoment.AfterLaunchDelay => $"kill {delayMs} ms after launch",
            KillMoment.AfterReady => $"kill {spinMicroseconds} us after ready",
            _ => $"kill {spinMicroseconds} us after {commitsBeforeKill} commits",
        };
        Cycles++;

        long? ready;
        long acknowledged;
        long started = Stopwatch.GetTimestamp();
        using (var child = CrashChildProcess.Start(_childOptions.Prepend(_directory)))
        {
            switch (moment)
            {
                case KillMoment.AfterLaunchDelay:
                    Thread.Sleep(delayMs);
                    break;
                case KillMoment.AfterReady:
                    if (!child.WaitForReady(ChildTimeout)) throw child.NotReached("open the environment", ChildTimeout);
                    Spin(spinMicroseconds);
                    break;
                default:
                    if (!child.WaitForCommits(commitsBeforeKill, ChildTimeout)) throw child.NotReached($"acknowledge {commitsBeforeKill} commits", ChildTimeout);
                    Spin(spinMicroseconds);
                    break;
            }
            child.Kill();
            ready = child.Ready;
            LastReadyAfter = child.ReadyAfter;
            acknowledged = child.LastCommitted ?? _modelTransaction;
            AcknowledgedCommits += child.Commits;
        }
        if (ready is null) KilledBeforeReady++;
        else if (ready != _modelTransaction)
            throw Failure(plan, $"the child opened the environment at transaction {ready}, but the last verified state was {_modelTransaction}.");

        _inChildren += Stopwatch.GetElapsedTime(started);
        started = Stopwatch.GetTimestamp();
        Verify(plan, acknowledged, crashVerifier);
        _verifying += Stopwatch.GetElapsedTime(started);
    }

    private void Verify(string plan, long acknowledged, bool crashAfterwards)
    {
        StorageEnvironment environment;
        try
        {
            environment = StorageEnvironment.Open(_verifyOptions());
        }
        catch (Exception e) when (e is StorageException or IOException)
        {
            throw Failure(plan, $"opening the environment after the kill failed: {e}");
        }
        try
        {
            long recovered;
            using (var read = environment.BeginRead())
            {
                recovered = CrashWorkload.LastTransaction(read);
                if (recovered < acknowledged)
                    throw Failure(plan, $"commit {acknowledged} was acknowledged but the environment recovered only to transaction {recovered}.");
                if (recovered > acknowledged + _maxInFlight)
                    throw Failure(plan, $"the last acknowledged commit was {acknowledged}, at most {_maxInFlight} could be in flight, but the environment holds transaction {recovered}.");
                while (_modelTransaction < recovered) CrashWorkload.Apply(++_modelTransaction, _model);
                string? difference = FindDifference(read);
                if (difference is not null) throw Failure(plan, $"the content is not the state after transaction {recovered}: {difference}");
            }
            if (recovered > acknowledged) UnacknowledgedCommitsRecovered++;

            var report = environment.Check();
            if (!report.IsHealthy) throw Failure(plan, $"Check() after recovery to transaction {recovered} is not healthy: {string.Join("; ", report.Problems)}");
        }
        finally
        {
            // Half the time skip the clean close (final checkpoint, trim), as if the verifying process died too.
            if (crashAfterwards) environment.SimulateCrash();
            else environment.Dispose();
        }
    }

    /// <summary>Compares the tree with the model entry by entry, in key order; null when they are equal.</summary>
    private string? FindDifference(ReadTransaction read)
    {
        if (!read.TryOpenTree(CrashWorkload.TreeName, out var tree))
            return _model.Count == 0 ? null : $"the tree '{CrashWorkload.TreeName}' is missing; {_model.Count} entries expected.";
        using var cursor = tree.CreateCursor();
        using var expected = _model.GetEnumerator();
        bool hasActual = cursor.First();
        bool hasExpected = expected.MoveNext();
        long position = 0;
        while (hasActual || hasExpected)
        {
            string? actualKey = hasActual ? Encoding.ASCII.GetString(cursor.Key) : null;
            if (!hasActual) return $"entry #{position}: key '{expected.Current.Key}' is missing (and every key after it).";
            if (!hasExpected) return $"entry #{position}: unexpected key '{actualKey}' after the last expected key.";
            int order = string.CompareOrdinal(actualKey, expected.Current.Key);
            if (order < 0) return $"entry #{position}: unexpected key '{actualKey}' (expected '{expected.Current.Key}' next).";
            if (order > 0) return $"entry #{position}: key '{expected.Current.Key}' is missing (found '{actualKey}' instead).";
            if (!cursor.Value.SequenceEqual(expected.Current.Value))
                return $"key '{actualKey}': value of {cursor.Value.Length} bytes written by transaction {Writer(cursor.Value)}, " +
                    $"expected {expected.Current.Value.Length} bytes written by transaction {Writer(expected.Current.Value)}.";
            hasActual = cursor.Next();
            hasExpected = expected.MoveNext();
            position++;
        }
        if (tree.Count != _model.Count) return $"Tree.Count is {tree.Count} but the tree holds {_model.Count} entries.";
        return null;
    }

    private static string Writer(ReadOnlySpan<byte> value) =>
        value.Length >= 8 ? System.Buffers.Binary.BinaryPrimitives.ReadInt64LittleEndian(value).ToString(System.Globalization.CultureInfo.InvariantCulture) : "?";

    private static void Spin(int microseconds)
    {
        if (microseconds == 0) return;
        long until = Stopwatch.GetTimestamp() + microseconds * Stopwatch.Frequency / 1_000_000;
        while (Stopwatch.GetTimestamp() < until) Thread.SpinWait(20);
    }

    private Xunit.Sdk.XunitException Failure(string plan, string problem) =>
        new($"Cycle {Cycles} ({plan}; {string.Join(' ', _childOptions)}): {problem} Directory: {_directory}");
}
