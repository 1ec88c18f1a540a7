using System.Diagnostics;

namespace StorageEngine.Benchmarks;

/// <summary>
/// Group commit, measured directly (BenchmarkDotNet does not drive several committing threads): 1, 2 and 4
/// threads each commit single-put transactions (16-byte random keys, 100-byte values) for a fixed time on a
/// fresh environment, for several rounds; prints commits/s, journal records per journal write and journal
/// bytes per record from <see cref="EnvironmentStatistics"/>, and the median per thread count.
/// Run: <c>dotnet run -c Release --project benchmarks/StorageEngine.Benchmarks -- --group-commit-probe [directory]</c>.
/// </summary>
internal static class GroupCommitProbe
{
    private const int Rounds = 3;
    private static readonly TimeSpan Duration = TimeSpan.FromSeconds(2);
    private static readonly int[] ThreadCounts = [1, 2, 4];

    public static void Run(string directory)
    {
        var rates = ThreadCounts.ToDictionary(t => t, _ => new List<double>());
        for (int round = 0; round < Rounds; round++)
        {
            foreach (int threads in ThreadCounts)
            {
                var (rate, recordsPerWrite, bytesPerRecord) = Measure(directory, threads);
                rates[threads].Add(rate);
                Console.WriteLine($"round {round} threads {threads}: {rate,8:0} commits/s, {recordsPerWrite:0.00} records/write, {bytesPerRecord / 1024:0.0} KiB/record");
            }
        }
        foreach (int threads in ThreadCounts)
        {
            var sorted = rates[threads].Order().ToList();
            Console.WriteLine($"median, {threads} thread(s): {sorted[sorted.Count / 2]:0} commits/s ({sorted[sorted.Count / 2] / rates[1].Order().ElementAt(Rounds / 2):0.00}x one thread)");
        }
    }

    private static (double Rate, double RecordsPerWrite, double BytesPerRecord) Measure(string directory, int threads)
    {
        if (Directory.Exists(directory)) Directory.Delete(directory, recursive: true);
        try
        {
            using var environment = StorageEnvironment.Open(directory);
            using (var transaction = environment.BeginWrite())
            {
                transaction.CreateTree("t");
                transaction.Commit();
            }
            var before = environment.GetStatistics();
            long commits = 0;
            var clock = Stopwatch.StartNew();
            var workers = Enumerable.Range(0, threads).Select(t => new Thread(() =>
            {
                var random = new Random(t);
                var key = new byte[16];
                var value = new byte[100];
                long mine = 0;
                while (clock.Elapsed < Duration)
                {
                    random.NextBytes(key);
                    using var transaction = environment.BeginWrite();
                    transaction.OpenTree("t").Put(key, value);
                    transaction.Commit();
                    mine++;
                }
                Interlocked.Add(ref commits, mine);
            })).ToList();
            workers.ForEach(w => w.Start());
            workers.ForEach(w => w.Join());
            double seconds = clock.Elapsed.TotalSeconds;
            var after = environment.GetStatistics();
            long records = after.JournalRecords - before.JournalRecords;
            long writes = after.JournalWrites - before.JournalWrites;
            return (commits / seconds, (double)records / writes, (double)(after.JournalBytesWritten - before.JournalBytesWritten) / records);
        }
        finally
        {
            if (Directory.Exists(directory)) Directory.Delete(directory, recursive: true);
        }
    }
}
