using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Text;

namespace StorageEngine.Cluster.Tests.Infrastructure;

/// <summary>
/// One StorageEngine.Cluster.NodeProcess: started on a data directory, waited for until it prints "ready";
/// killed with SIGKILL, frozen with SIGSTOP (cut off from everyone while alive) and thawed with SIGCONT, or
/// stopped cleanly by closing its standard input.
/// </summary>
internal sealed partial class NodeProcess : IDisposable
{
    private const string AssemblyName = "StorageEngine.Cluster.NodeProcess.dll";
    private const int SigKill = 9, SigCont = 18, SigStop = 19;
    private readonly Process _process;
    private readonly StringBuilder _output = new();
    private readonly TaskCompletionSource _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);

    private NodeProcess(Process process) => _process = process;

    public int Id => _process.Id;

    public bool HasExited => _process.HasExited;

    public string Output
    {
        get
        {
            lock (_output) return _output.ToString();
        }
    }

    /// <summary>Starts a node; <paramref name="privateLogMemory"/> makes its Raft log keep unflushed entries in the process's own memory, so that SIGKILL loses what a power loss would.</summary>
    public static async Task<NodeProcess> StartAsync(string dataDirectory, int self, string members, long snapshotInterval, bool privateLogMemory = false)
    {
        string assembly = Path.Combine(AppContext.BaseDirectory, AssemblyName);
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string argument in new[] { assembly, dataDirectory, self.ToString(), members, snapshotInterval.ToString() })
            start.ArgumentList.Add(argument);
        if (privateLogMemory) start.Environment["STORAGEENGINE_CLUSTER_LOG_MEMORY"] = "private";
        var node = new NodeProcess(Process.Start(start) ?? throw new InvalidOperationException("dotnet did not start."));
        node._process.OutputDataReceived += (_, e) => node.Received(e.Data, isError: false);
        node._process.ErrorDataReceived += (_, e) => node.Received(e.Data, isError: true);
        node._process.BeginOutputReadLine();
        node._process.BeginErrorReadLine();
        var exited = node._process.WaitForExitAsync();
        if (await Task.WhenAny(node._ready.Task, exited, Task.Delay(TimeSpan.FromSeconds(60))) != node._ready.Task)
        {
            node.Kill();
            throw new InvalidOperationException($"Node {self} did not become ready:\n{node.Output}");
        }
        return node;
    }

    private void Received(string? line, bool isError)
    {
        if (line is null) return;
        lock (_output) _output.AppendLine(isError ? "! " + line : line);
        if (!isError && line == "ready") _ready.TrySetResult();
    }

    /// <summary>SIGKILL: the process dies at once, with no chance to flush or close anything.</summary>
    public void Kill()
    {
        if (_process.HasExited) return;
        _process.Kill();
        _process.WaitForExit();
    }

    /// <summary>SIGKILL without waiting for the process to end (to take several nodes down at the same moment).</summary>
    public void SendKill()
    {
        if (!_process.HasExited) Signal(SigKill);
    }

    /// <summary>SIGSTOP: the process stays alive but answers nobody, as if the network around it were cut.</summary>
    public void Pause() => Signal(SigStop);

    /// <summary>SIGCONT: the frozen process carries on where it stopped.</summary>
    public void Resume() => Signal(SigCont);

    /// <summary>Closes standard input: the node leaves the cluster and closes its environment, then exits.</summary>
    public async Task StopAsync()
    {
        if (_process.HasExited) return;
        _process.StandardInput.Close();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        try
        {
            await _process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            Kill();
            throw new InvalidOperationException($"The node did not stop within 30 s:\n{Output}");
        }
        if (_process.ExitCode != 0) throw new InvalidOperationException($"The node exited with {_process.ExitCode}:\n{Output}");
    }

    private void Signal(int signal)
    {
        if (kill(_process.Id, signal) != 0) throw new InvalidOperationException($"kill({_process.Id}, {signal}) failed: errno {Marshal.GetLastPInvokeError()}.");
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            Resume();
            Kill();
        }
        _process.Dispose();
    }

    [LibraryImport("libc", SetLastError = true)]
    private static partial int kill(int pid, int sig);
}
