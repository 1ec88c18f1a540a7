namespace StorageEngine.CrashChild;

/// <summary>
/// A read transaction disposed on another thread while a long batch lookup runs on it, and the environment closed
/// right after: the misuse that once let the close unmap the data file under the lookup, which crashed the process
/// (SIGSEGV). Prints "ready 0", then "committed R" after round R, and then waits to be killed; a lookup that fails
/// with anything but <see cref="ObjectDisposedException"/> ends the process with code 3. Before waiting it writes
/// "disposed during a lookup in K of R rounds" to standard error: the rounds whose dispose came inside a lookup.
/// </summary>
internal static class ReadDisposeRace
{
    private const int Keys = 100_000;
    private const string TreeName = "race";

    public static int Run(string directory, int rounds, Action<string> say)
    {
        var options = new StorageEnvironmentOptions { Path = directory, Durability = DurabilityMode.Lazy };
        using (var environment = StorageEnvironment.Open(options))
        using (var write = environment.BeginWrite())
        {
            var tree = write.CreateTree(TreeName, TreeOptions.Int64Keys);
            var value = new byte[100];
            for (long k = 0; k < Keys; k++) tree.Put(k, value);
            write.Commit();
        }
        say("ready 0");
        var keys = new long[Keys];
        for (int k = 0; k < Keys; k++) keys[k] = (k * 7919L) % Keys;
        int duringLookup = 0;
        for (int round = 1; round <= rounds; round++)
        {
            // Opened again each round: the close checkpointed everything, so the lookups read the mapped data file.
            var environment = StorageEnvironment.Open(options);
            var read = environment.BeginRead();
            var lookedUp = read.OpenTree(TreeName);
            using var started = new ManualResetEventSlim();
            Exception? failed = null;
            var lookups = new Thread(() =>
            {
                var results = new BatchLookupResults(Keys);
                try
                {
                    while (true)
                    {
                        started.Set();
                        lookedUp.GetMany(keys, results);
                        lookedUp.TryGet(round, out _);
                    }
                }
                catch (ObjectDisposedException e)
                {
                    // What the misuse is told: at the lookup's end when the dispose came inside it.
                    if (e.Message.Contains("while this operation ran", StringComparison.Ordinal)) Interlocked.Increment(ref duringLookup);
                }
                catch (Exception e)
                {
                    failed = e;
                }
                finally
                {
                    started.Set();
                }
            });
            lookups.Start();
            started.Wait();
            Thread.SpinWait(round % 20 * 2_000);
            read.Dispose();
            environment.Dispose();
            lookups.Join();
            if (failed is not null)
            {
                Console.Error.WriteLine($"round {round}: {failed}");
                return 3;
            }
            say($"committed {round}");
        }
        Console.Error.WriteLine($"disposed during a lookup in {duringLookup} of {rounds} rounds");
        Thread.Sleep(Timeout.Infinite);
        return 0;
    }
}
