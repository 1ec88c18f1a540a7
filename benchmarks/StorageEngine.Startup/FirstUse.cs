using System.Diagnostics;

namespace StorageEngine.Startup;

/// <summary>
/// What a process pays the first time it uses the engine, in four steps timed apart: open (creating a new environment
/// in Safe mode), the first write transaction (a tree and one put, committed), the close, then a reopen and one read.
/// Each step includes compiling the engine's code that it runs for the first time, which is most of it.
/// </summary>
internal static class FirstUse
{
    /// <summary>The four steps' milliseconds, in order.</summary>
    public static double[] Measure(string directory)
    {
        if (Directory.Exists(directory)) Directory.Delete(directory, recursive: true);
        var options = new StorageEnvironmentOptions { Path = directory, Durability = DurabilityMode.Safe };
        var times = new double[4];
        var clock = Stopwatch.StartNew();
        var env = StorageEnvironment.Open(options);
        times[0] = clock.Elapsed.TotalMilliseconds;
        clock.Restart();
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("first").Put("key"u8, "value"u8);
            tx.Commit();
        }
        times[1] = clock.Elapsed.TotalMilliseconds;
        clock.Restart();
        env.Dispose();
        times[2] = clock.Elapsed.TotalMilliseconds;
        clock.Restart();
        using (env = StorageEnvironment.Open(options))
        using (var read = env.BeginRead())
        {
            if (!read.OpenTree("first").TryGet("key"u8, out _)) throw new InvalidOperationException("The reopened environment lost its key.");
        }
        times[3] = clock.Elapsed.TotalMilliseconds;
        Directory.Delete(directory, recursive: true);
        return times;
    }
}
