using System.Diagnostics;
using System.Globalization;
using System.Text;

namespace StorageEngine.Tests.Crash;

/// <summary>
/// One run of StorageEngine.CrashChild: starts it on a directory, follows its "ready"/"committed" lines, and kills
/// it with SIGKILL (<see cref="Process.Kill(bool)"/> on Linux), which gives the engine no chance to clean up.
/// </summary>
internal sealed class CrashChildProcess : IDisposable
{
    private const string ChildAssemblyName = "StorageEngine.CrashChild.dll";
    private readonly Process _process;
    private readonly Thread _reader;
    private readonly StringBuilder _stderr = new();
    private readonly object _gate = new();
    private readonly long _started = Stopwatch.GetTimestamp();
    private readonly List<string> _unexpectedLines = new();
    private long? _ready;
    private TimeSpan? _readyAfter;
    private long? _lastCommitted;
    private int _commits;
    private bool _endOfOutput;
    private bool _killed;

    private CrashChildProcess(Process process)
    {
        _process = process;
        _process.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is null) return;
            lock (_stderr) _stderr.AppendLine(e.Data);
        };
        _process.BeginErrorReadLine();
        _reader = new Thread(ReadOutput) { IsBackground = true, Name = "crash child stdout" };
        _reader.Start();
    }

    /// <summary>The built child, copied next to the test assembly by the project reference.</summary>
    public static string ChildAssemblyPath => Path.Combine(AppContext.BaseDirectory, ChildAssemblyName);

    /// <summary>The value of "ready N": the last transaction the child found on opening; null if it never got there.</summary>
    public long? Ready
    {
        get { lock (_gate) return _ready; }
    }

    /// <summary>Time from launch to the "ready" line; null if it never came.</summary>
    public TimeSpan? ReadyAfter
    {
        get { lock (_gate) return _readyAfter; }
    }

    /// <summary>The largest i of "committed i" lines: the last commit acknowledged; null if none.</summary>
    public long? LastCommitted
    {
        get { lock (_gate) return _lastCommitted; }
    }

    /// <summary>Number of "committed" lines read.</summary>
    public int Commits
    {
        get { lock (_gate) return _commits; }
    }

    /// <summary>The operating system's id of the started process (the emulator's, where a launcher runs the child).</summary>
    public int ProcessId => _process.Id;

    public string StandardError
    {
        get { lock (_stderr) return _stderr.ToString(); }
    }

    /// <summary>
    /// Names a self-contained build of the child to run instead of <see cref="ChildAssemblyPath"/> on the dotnet
    /// host: set where the tests themselves run self-contained, as the ARM64 leg of CI does under qemu (an x64
    /// dotnet host cannot start the ARM64 build the tests sit beside).
    /// </summary>
    public const string ChildExecutableVariable = "STORAGEENGINE_CRASH_CHILD";

    /// <summary>A program that runs <see cref="ChildExecutableVariable"/>'s executable, given as its first argument (e.g. qemu-aarch64-static).</summary>
    public const string ChildLauncherVariable = "STORAGEENGINE_CRASH_CHILD_LAUNCHER";

    public static CrashChildProcess Start(IEnumerable<string> arguments)
    {
        var start = ChildStartInfo();
        start.RedirectStandardOutput = true;
        start.RedirectStandardError = true;
        start.RedirectStandardInput = false;
        start.UseShellExecute = false;
        start.StandardOutputEncoding = Encoding.ASCII;
        // The child inherits this process's environment (the DOTNET_Enable* settings of a CI configuration
        // included), so it runs the same CPU paths as the tests.
        // A killed runtime cannot remove its diagnostic pipe and socket: thousands of crash cycles would leave
        // thousands of them in the temporary directory.
        start.Environment["DOTNET_EnableDiagnostics"] = "0";
        foreach (string argument in arguments) start.ArgumentList.Add(argument);
        var process = Process.Start(start) ?? throw new InvalidOperationException("Could not start the crash child.");
        return new CrashChildProcess(process);
    }

    /// <summary>The built child on the dotnet host, or the executable <see cref="ChildExecutableVariable"/> names.</summary>
    private static ProcessStartInfo ChildStartInfo()
    {
        string? executable = Environment.GetEnvironmentVariable(ChildExecutableVariable);
        if (!string.IsNullOrEmpty(executable))
        {
            if (!File.Exists(executable))
                throw new FileNotFoundException($"{ChildExecutableVariable} names {executable}, which does not exist.", executable);
            string? launcher = Environment.GetEnvironmentVariable(ChildLauncherVariable);
            if (string.IsNullOrEmpty(launcher)) return new ProcessStartInfo(executable);
            var launched = new ProcessStartInfo(launcher);
            launched.ArgumentList.Add(executable);
            return launched;
        }
        string child = ChildAssemblyPath;
        if (!File.Exists(child))
            throw new FileNotFoundException($"The crash child was not built next to the tests; expected {child} (the test project references StorageEngine.CrashChild).", child);
        var start = new ProcessStartInfo(DotnetHost());
        start.ArgumentList.Add(child);
        return start;
    }

    /// <summary>The dotnet host running the tests when it is one, so the child runs on the same runtime.</summary>
    private static string DotnetHost()
    {
        string? self = Environment.ProcessPath;
        if (self is not null && Path.GetFileNameWithoutExtension(self).Equals("dotnet", StringComparison.OrdinalIgnoreCase)) return self;
        string? cli = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH");
        return !string.IsNullOrEmpty(cli) && File.Exists(cli) ? cli : "dotnet";
    }

    /// <summary>Waits until the child has reported "ready"; false on timeout or if its output ended first.</summary>
    public bool WaitForReady(TimeSpan timeout) => WaitUntil(() => _ready.HasValue, timeout);

    /// <summary>Waits until the child has acknowledged <paramref name="commits"/> commits; false on timeout or if its output ended first.</summary>
    public bool WaitForCommits(int commits, TimeSpan timeout) => WaitUntil(() => _commits >= commits, timeout);

    private bool WaitUntil(Func<bool> condition, TimeSpan timeout)
    {
        long deadline = Environment.TickCount64 + (long)timeout.TotalMilliseconds;
        lock (_gate)
        {
            while (!condition())
            {
                long left = deadline - Environment.TickCount64;
                if (_endOfOutput || left <= 0) return false;
                Monitor.Wait(_gate, (int)Math.Min(left, int.MaxValue));
            }
            return true;
        }
    }

    /// <summary>
    /// Kills the child with SIGKILL and waits until it is gone and its output is read. Throws when it had already
    /// exited: it never exits on its own, so that means it failed.
    /// </summary>
    public void Kill()
    {
        if (_process.HasExited) throw ExitedOnItsOwn();
        _killed = true;
        try
        {
            _process.Kill(entireProcessTree: true);
        }
        catch (InvalidOperationException)
        {
            // It exited between the check and the kill; reported below.
        }
        _process.WaitForExit();
        _reader.Join();
        if (_process.ExitCode != 137 && _process.ExitCode != -1) throw ExitedOnItsOwn();
        lock (_gate)
        {
            if (_unexpectedLines.Count > 0)
                throw new InvalidOperationException($"The crash child printed unexpected lines: {string.Join(" | ", _unexpectedLines)}. stderr: {StandardError}");
        }
    }

    /// <summary>The failure for a wait that ended without what it waited for: the child died, or it hangs (then it is killed).</summary>
    public Exception NotReached(string expected, TimeSpan timeout)
    {
        bool outputEnded;
        lock (_gate) outputEnded = _endOfOutput;
        // Output that ended means a child on its way out: wait for its exit code rather than call it a hang.
        if (_process.HasExited || (outputEnded && _process.WaitForExit(TimeSpan.FromSeconds(10)))) return ExitedOnItsOwn();
        try
        {
            _process.Kill(entireProcessTree: true);
        }
        catch (InvalidOperationException)
        {
            return ExitedOnItsOwn();
        }
        return new TimeoutException($"The crash child did not {expected} within {timeout.TotalSeconds:0} s; stderr:{Environment.NewLine}{StandardError}");
    }

    public Exception ExitedOnItsOwn()
    {
        _process.WaitForExit();
        return new InvalidOperationException(
            $"The crash child exited on its own with code {_process.ExitCode}{(_killed ? " (a kill was requested)" : "")}; stderr:{Environment.NewLine}{StandardError}");
    }

    private void ReadOutput()
    {
        try
        {
            string? line;
            while ((line = _process.StandardOutput.ReadLine()) is not null)
            {
                lock (_gate)
                {
                    if (TryParse(line, "ready ", out long ready) && _ready is null)
                    {
                        _ready = ready;
                        _readyAfter = Stopwatch.GetElapsedTime(_started);
                    }
                    else if (TryParse(line, "committed ", out long committed) && _ready.HasValue
                        && committed == (_lastCommitted ?? _ready.Value) + 1)
                    {
                        _lastCommitted = committed;
                        _commits++;
                    }
                    else _unexpectedLines.Add(line);
                    Monitor.PulseAll(_gate);
                }
            }
        }
        finally
        {
            lock (_gate)
            {
                _endOfOutput = true;
                Monitor.PulseAll(_gate);
            }
        }
    }

    private static bool TryParse(string line, string prefix, out long value)
    {
        value = 0;
        return line.StartsWith(prefix, StringComparison.Ordinal)
            && long.TryParse(line.AsSpan(prefix.Length), NumberStyles.None, CultureInfo.InvariantCulture, out value);
    }

    public void Dispose()
    {
        try
        {
            if (!_process.HasExited) _process.Kill(entireProcessTree: true);
            _process.WaitForExit();
        }
        catch (InvalidOperationException)
        {
            // Already gone.
        }
        _process.Dispose();
    }
}
