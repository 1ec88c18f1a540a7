using System.Diagnostics;

namespace DocumentStore.Benchmarks;

/// <summary>
/// The scenario both engines run, operation for operation from the same seed: bulk insert in transactions of
/// <see cref="ScenarioOptions.BatchSize"/>, inserts of one document per transaction, gets by id, equality and
/// range queries on each index with paging, updates that move both index keys, deletes, and a reopen.
/// </summary>
internal sealed class Scenario(ScenarioOptions options)
{
    /// <summary>
    /// Runs the scenario on <paramref name="engine"/>. <paramref name="createEngine"/> makes more of its kind in
    /// the directory it is given, for the median of creations: new directories under <paramref name="scratch"/>,
    /// deleted afterwards.
    /// </summary>
    public List<PhaseResult> Run(IDocumentEngine engine, Func<string, IDocumentEngine> createEngine, string scratch, Action<string> log)
    {
        var results = new List<PhaseResult>();
        var random = new Random(options.Seed);
        var content = new Random(options.Seed + 1);
        long n = options.Documents;
        void Record(PhaseResult result)
        {
            results.Add(result);
            log($"  {result.Phase,-22} {result.Operations,10:N0} {result.Unit,-5} {result.Seconds,8:0.000} s {result.Rate,12:N0}/s  check {result.Check:N0}");
        }

        // Create: the first one in the process pays for loading and compiling the engine's code, so it is its own
        // row; the compared figure is the median of further creations of empty databases in fresh directories.
        var clock = Stopwatch.StartNew();
        engine.Open();
        Record(new PhaseResult("create (first, cold)", "opens", 1, clock.Elapsed.TotalSeconds, 0));
        foreach (var created in MedianOfCreates(createEngine, scratch)) Record(created);

        // Bulk insert: documents 0..n-1 in batches.
        var batch = new List<SampleDocument>(options.BatchSize);
        clock.Restart();
        for (long i = 0; i < n; i += options.BatchSize)
        {
            batch.Clear();
            for (long j = i; j < Math.Min(n, i + options.BatchSize); j++)
                batch.Add(DocumentGenerator.Create(j, (int)(j % DocumentGenerator.Cities), (int)(j * 7 % DocumentGenerator.Ages), content));
            engine.Insert(batch);
        }
        Record(new PhaseResult($"insert (batch {options.BatchSize})", "docs", n, clock.Elapsed.TotalSeconds, engine.Count()));

        // One document per transaction: the durable commit path.
        clock.Restart();
        for (int i = 0; i < options.SingleCommits; i++)
        {
            long id = n + i;
            engine.Insert([DocumentGenerator.Create(id, (int)(id % DocumentGenerator.Cities), (int)(id * 7 % DocumentGenerator.Ages), content)]);
        }
        long total = n + options.SingleCommits;
        Record(new PhaseResult("insert (1 per commit)", "docs", options.SingleCommits, clock.Elapsed.TotalSeconds, engine.Count()));

        // Gets by id, random, about 1 in 10 missing.
        long found = 0;
        clock.Restart();
        for (int i = 0; i < options.Gets; i++)
            if (engine.Get(DocumentGenerator.Id(random.NextInt64(total + total / 10)))) found++;
        Record(new PhaseResult("get by id", "gets", options.Gets, clock.Elapsed.TotalSeconds, found));

        RunQueries(engine, random, Record);

        // Updates that move both index keys: half of the documents, in batches.
        long updates = total / 2;
        clock.Restart();
        for (long i = 0; i < updates; i += options.BatchSize)
        {
            batch.Clear();
            for (long j = i; j < Math.Min(updates, i + options.BatchSize); j++)
            {
                long id = j * 2;
                batch.Add(DocumentGenerator.Create(id, (int)((id + 1 + j % 7) % DocumentGenerator.Cities), (int)((id * 7 + 13) % DocumentGenerator.Ages), content));
            }
            engine.Update(batch);
        }
        Record(new PhaseResult($"update (batch {options.BatchSize})", "docs", updates, clock.Elapsed.TotalSeconds, engine.Count()));

        // Deletes: every fourth document, in batches.
        long deletes = total / 4;
        var ids = new List<string>(options.BatchSize);
        clock.Restart();
        for (long i = 0; i < deletes; i += options.BatchSize)
        {
            ids.Clear();
            for (long j = i; j < Math.Min(deletes, i + options.BatchSize); j++) ids.Add(DocumentGenerator.Id(j * 4 + 1));
            engine.Delete(ids);
        }
        Record(new PhaseResult($"delete (batch {options.BatchSize})", "docs", deletes, clock.Elapsed.TotalSeconds, engine.Count()));

        // Reopen: a clean close, then open and read one document; the median of several (one operation is noise).
        var reopens = new double[options.Opens];
        long firstFound = 0;
        for (int i = 0; i < reopens.Length; i++)
        {
            engine.Close();
            clock.Restart();
            engine.Open();
            if (engine.Get(DocumentGenerator.Id(0))) firstFound++;
            reopens[i] = clock.Elapsed.TotalSeconds;
        }
        Record(new PhaseResult($"reopen + first get (median of {options.Opens})", "opens", 1, Median(reopens), firstFound));

        long count = engine.Count();
        engine.Close();
        results.Add(new PhaseResult("all files after close", "bytes", engine.FileBytes(), 1, count));
        results.Add(new PhaseResult("data file after close", "bytes", engine.DataFileBytes(), 1, count));
        return results;
    }

    /// <summary>
    /// The median of creations of empty databases in fresh directories, and of the same creations followed by what
    /// the engine needs beyond them to survive a power loss (<see cref="IDocumentEngine.MakeCreationDurable"/>):
    /// ours syncs before its create returns and LiteDB's syncs nothing, so the second row compares them at equal
    /// durability.
    /// </summary>
    private PhaseResult[] MedianOfCreates(Func<string, IDocumentEngine> createEngine, string scratch)
    {
        var seconds = new double[options.Opens];
        var durableSeconds = new double[options.Opens];
        string root = Path.Combine(scratch, $"create-{Guid.NewGuid():N}");
        try
        {
            for (int i = 0; i < seconds.Length; i++)
            {
                using var fresh = createEngine(Path.Combine(root, i.ToString(System.Globalization.CultureInfo.InvariantCulture)));
                var clock = Stopwatch.StartNew();
                fresh.Open();
                seconds[i] = clock.Elapsed.TotalSeconds;
                fresh.MakeCreationDurable();
                durableSeconds[i] = clock.Elapsed.TotalSeconds;
                fresh.Close();
            }
        }
        finally
        {
            if (Directory.Exists(root)) Directory.Delete(root, recursive: true);
        }
        return
        [
            new PhaseResult($"create (median of {options.Opens})", "opens", 1, Median(seconds), 0),
            new PhaseResult($"create, then synced (median of {options.Opens})", "opens", 1, Median(durableSeconds), 0),
        ];
    }

    private static double Median(double[] values)
    {
        var sorted = (double[])values.Clone();
        Array.Sort(sorted);
        int middle = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private void RunQueries(IDocumentEngine engine, Random random, Action<PhaseResult> record)
    {
        var kinds = new (string Name, Func<IndexQuery> Next)[]
        {
            ("city = x", () => new IndexQuery("city", DocumentGenerator.City(random.Next(DocumentGenerator.Cities)), null)),
            ("city in [x, x+2]", () =>
            {
                int low = random.Next(DocumentGenerator.Cities - 2);
                return new IndexQuery("city", DocumentGenerator.City(low), DocumentGenerator.City(low + 2));
            }),
            ("age = x", () => new IndexQuery("age", random.Next(DocumentGenerator.Ages), null)),
            ("age in [x, x+4]", () =>
            {
                int low = random.Next(DocumentGenerator.Ages - 4);
                return new IndexQuery("age", low, low + 4);
            }),
        };
        foreach (var (name, next) in kinds)
        {
            long read = 0;
            var clock = Stopwatch.StartNew();
            for (int i = 0; i < options.QueriesPerKind; i++) read += engine.Query(next(), options.PageSize, options.Pages);
            record(new PhaseResult(name, "qry", options.QueriesPerKind, clock.Elapsed.TotalSeconds, read));
        }
    }
}
