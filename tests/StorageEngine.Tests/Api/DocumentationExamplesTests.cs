using System.Text;
using System.Text.RegularExpressions;
using StorageEngine.Platform;
using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Api;

/// <summary>
/// Every C# example of docs/*.md, verbatim, run as a test: the docs cannot show code that does not compile or
/// does not work. <see cref="Every_csharp_example_in_the_docs_is_one_of_these_tests"/> fails when an example
/// in the docs changes without its copy here.
/// </summary>
public sealed partial class DocumentationExamplesTests : IDisposable
{
    private readonly TempDirectory _dir = new("docs");
    private readonly string path;

    public DocumentationExamplesTests()
    {
        path = _dir.File("db");
    }

    public void Dispose() => _dir.Dispose();

    /// <summary>An environment on a memory file system with a small journal, for examples that only need one.</summary>
    private static StorageEnvironment MemoryEnvironment() => StorageEnvironment.Open(TestData.SafeOptions(new MemoryFileSystem()));

    [Fact]
    public void ApiGuide_opening()
    {
        var options = new StorageEnvironmentOptions
        {
            Path = path,
            Durability = DurabilityMode.Safe,
            CheckpointInterval = TimeSpan.FromSeconds(30),
        };
        using var env = StorageEnvironment.Open(options);
        Console.WriteLine($"{env.Directory}: {env.PageSize}-byte pages, keys up to {env.MaxKeySize} bytes");

        Assert.True(File.Exists(Path.Combine(path, "data.sedb")));
        Assert.Equal(1024, env.MaxKeySize);
    }

    [Fact]
    public void ApiGuide_lost_journal_files()
    {
        using (var crashed = StorageEnvironment.Open(path))
        {
            using (var write = crashed.BeginWrite())
            {
                write.CreateTree("t").Put("k"u8, "v"u8);
                write.Commit();
            }
            crashed.SimulateCrash();
        }
        // Names matched here, not by a GetFiles pattern: Wine's pattern matching finds no "journal.*" at all.
        var journals = Directory.GetFiles(path).Where(file => Path.GetFileName(file).StartsWith("journal.", StringComparison.Ordinal)).ToList();
        Assert.NotEmpty(journals);
        foreach (var journal in journals) File.Delete(journal);
        Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(path));

        using var salvaged = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = path, AcceptJournalLoss = true });

        Assert.Equal(0, salvaged.LastCommittedTransactionId);
        Assert.True(salvaged.Check().IsHealthy);
    }

    [Fact]
    public void ApiGuide_transactions()
    {
        using var env = MemoryEnvironment();

        using (var tx = env.BeginWrite())
        {
            Tree users = tx.CreateTree("users");      // opens it when it exists
            users.Put("alice"u8, "{\"age\":31}"u8);
            users.Put("bob"u8, "{\"age\":27}"u8);
            users.Delete("carol"u8);                  // false: there was no carol
            tx.Commit();                              // durable when it returns (Safe)
        }

        using (var tx = env.BeginRead())
        {
            Tree users = tx.OpenTree("users");
            if (users.TryGet("alice"u8, out ReadOnlySpan<byte> value))
                Console.WriteLine(Encoding.UTF8.GetString(value));   // valid until the transaction ends
            byte[]? bob = users.Get("bob"u8);                         // a copy, or null
            Console.WriteLine($"{users.Count} users, bob is {bob?.Length} bytes, snapshot {tx.SnapshotId}");
        }

        using var check = env.BeginRead();
        Assert.Equal(2, check.OpenTree("users").Count);
        Assert.Equal("{\"age\":31}"u8.ToArray(), check.OpenTree("users").Get("alice"u8));
    }

    [Fact]
    public async Task ApiGuide_await_using_a_write_transaction()
    {
        using var env = MemoryEnvironment();
        using var cancellation = new CancellationTokenSource();
        var cancellationToken = cancellation.Token;

        await using (WriteTransaction tx = await env.BeginWriteAsync(cancellationToken))
        {
            tx.CreateTree("users").Put("dave"u8, "{\"age\":40}"u8);
            await tx.CommitAsync();                   // durable when the task completes (Safe)
        }                                             // not committed (an exception above): aborted here

        using var check = env.BeginRead();
        Assert.Equal("{\"age\":40}"u8.ToArray(), check.OpenTree("users").Get("dave"u8));
    }

    [Fact]
    public void ApiGuide_trees()
    {
        using var env = MemoryEnvironment();

        using (var tx = env.BeginWrite())
        {
            Tree sessions = tx.CreateTree("sessions");
            sessions.Put("s1"u8, "x"u8);
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            foreach (string name in tx.GetTreeNames()) Console.WriteLine(name);   // bytewise order of the names
            if (tx.TryOpenTree("sessions", out Tree? sessions))
                Console.WriteLine($"{sessions.Count} sessions, depth {sessions.GetStatistics().Depth}");
            tx.DeleteTree("sessions");                                          // frees all its pages
            tx.Commit();
        }

        using var check = env.BeginRead();
        Assert.Empty(check.GetTreeNames());
        Assert.True(env.Check().IsHealthy);
    }

    [Fact]
    public void ApiGuide_integer_keys()
    {
        using var env = MemoryEnvironment();

        using (var tx = env.BeginWrite())
        {
            Tree orders = tx.CreateTree("orders", TreeOptions.Int64Keys);
            orders.Put(-5, "refund"u8);
            orders.Put(42, "order 42"u8);
            orders.Put(7, "order 7"u8);
            tx.Commit();
        }
        using (var tx = env.BeginRead())
        {
            using Cursor cursor = tx.OpenTree("orders").CreateCursor(KeyRange.Between(0, 100));
            for (bool more = cursor.First(); more; more = cursor.Next())
                Console.WriteLine($"{cursor.Int64Key}: {Encoding.UTF8.GetString(cursor.Value)}");   // 7, then 42
        }

        using var check = env.BeginRead();
        using var keys = check.OpenTree("orders").CreateCursor(KeyRange.Between(0, 100));
        var seen = new List<long>();
        for (bool more = keys.First(); more; more = keys.Next()) seen.Add(keys.Int64Key);
        Assert.Equal([7L, 42L], seen);
    }

    [Fact]
    public void ApiGuide_cursors_and_ranges()
    {
        using var env = MemoryEnvironment();

        using (var tx = env.BeginWrite())
        {
            Tree users = tx.CreateTree("people");
            foreach (var name in new[] { "user:ann", "user:bea", "user:max", "user:zoe", "admin:root" })
                users.Put(Encoding.UTF8.GetBytes(name), "{}"u8);
            tx.Commit();
        }
        using (var tx = env.BeginRead())
        {
            Tree users = tx.OpenTree("people");
            using Cursor cursor = users.CreateCursor(KeyRange.Prefix("user:"u8));
            for (bool more = cursor.Last(); more; more = cursor.Previous())           // zoe, max, bea, ann
                Console.WriteLine(Encoding.UTF8.GetString(cursor.Key));
            if (cursor.Seek("user:c"u8))                                            // first key >= "user:c": max
                Console.WriteLine(Encoding.UTF8.GetString(cursor.Key));
            if (cursor.SeekAtOrBefore("user:c"u8))                                  // last key <= "user:c": bea
                Console.WriteLine(Encoding.UTF8.GetString(cursor.Key));
        }

        using var check = env.BeginRead();
        using var c = check.OpenTree("people").CreateCursor(KeyRange.Prefix("user:"u8));
        var backwards = new List<string>();
        for (bool more = c.Last(); more; more = c.Previous()) backwards.Add(Encoding.UTF8.GetString(c.Key));
        Assert.Equal(["user:zoe", "user:max", "user:bea", "user:ann"], backwards);
        Assert.True(c.Seek("user:c"u8));
        Assert.Equal("user:max", Encoding.UTF8.GetString(c.Key));
        Assert.True(c.SeekAtOrBefore("user:c"u8));
        Assert.Equal("user:bea", Encoding.UTF8.GetString(c.Key));
    }

    [Fact]
    public void ApiGuide_large_values()
    {
        using var env = MemoryEnvironment();

        var photo = new byte[300_000];
        Random.Shared.NextBytes(photo);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("photos").Put("p1"u8, photo);
            tx.Commit();
        }
        using (var tx = env.BeginRead())
        {
            Tree photos = tx.OpenTree("photos");
            if (photos.TryGet("p1"u8, out ReadOnlySpan<byte> stored))
                Console.WriteLine($"{stored.Length} bytes on {photos.GetStatistics().OverflowPages} overflow pages");
        }

        using var check = env.BeginRead();
        Assert.Equal(photo, check.OpenTree("photos").Get("p1"u8));
        Assert.Equal((300_000 + 4095) / 4096, check.OpenTree("photos").GetStatistics().OverflowPages);
    }

    [Fact]
    public void ApiGuide_errors()
    {
        using var first = StorageEnvironment.Open(path);
        var console = Console.Out;
        var captured = new StringWriter();
        Console.SetOut(captured);
        try
        {
            try
            {
                using var second = StorageEnvironment.Open(path);
            }
            catch (EnvironmentLockedException e)
            {
                Console.WriteLine($"in use elsewhere: {e.LockFilePath}");
            }
            catch (CorruptionException e)
            {
                Console.WriteLine($"damaged: {e.FilePath} at byte {e.Offset}: {e.Problem}");
            }
        }
        finally
        {
            Console.SetOut(console);
        }
        Assert.Contains("in use elsewhere: ", captured.ToString());
    }

    [Fact]
    public async Task ApiGuide_threading()
    {
        using var env = MemoryEnvironment();

        // Readers on other threads run beside the writer and see only committed snapshots.
        Task<long>[] readers = Enumerable.Range(0, 4).Select(_ => Task.Run(() =>
        {
            using var tx = env.BeginRead();
            return tx.TryOpenTree("counters", out var counters) ? counters.Count : 0;
        })).ToArray();

        using (WriteTransaction tx = await env.BeginWriteAsync())
        {
            tx.CreateTree("counters").Put("visits"u8, BitConverter.GetBytes(1L));
            tx.Commit();
        }
        Console.WriteLine(string.Join(", ", await Task.WhenAll(readers)));   // 0 or 1 each

        Assert.All(await Task.WhenAll(readers), count => Assert.InRange(count, 0, 1));
    }

    [Fact]
    public async Task ApiGuide_asynchronous_commits()
    {
        using var env = MemoryEnvironment();

        var inFlight = new Queue<ValueTask>();
        for (int batch = 0; batch < 100; batch++)
        {
            using (var tx = env.BeginWrite())
            {
                Tree log = tx.CreateTree("log", TreeOptions.Int64Keys);
                for (int i = 0; i < 100; i++) log.Put(batch * 100L + i, "entry"u8);
                inFlight.Enqueue(tx.CommitAsync());           // the write lock is free again
            }
            if (inFlight.Count == 8) await inFlight.Dequeue(); // batch - 7 is durable
        }
        while (inFlight.Count > 0) await inFlight.Dequeue();

        using var read = env.BeginRead();
        Assert.Equal(10_000, read.OpenTree("log").Count);
    }

    [Fact]
    public void ApiGuide_read_only_open()
    {
        using (var writer = StorageEnvironment.Open(path))
        using (var write = writer.BeginWrite())
        {
            write.CreateTree("users");
            write.Commit();
        }

        using var reader = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = path, ReadOnly = true });
        using var tx = reader.BeginRead();
        Console.WriteLine($"read-only: {reader.IsReadOnly}, trees: {string.Join(", ", tx.GetTreeNames())}");

        Assert.Equal(["users"], tx.GetTreeNames());
        Assert.Throws<InvalidOperationException>(() => reader.BeginWrite());
    }

    [Fact]
    public void ApiGuide_check()
    {
        using var env = MemoryEnvironment();
        EnvironmentContents.FillFragmented(env, entries: 2_000);

        var progress = new Progress<CheckProgress>(p => Console.WriteLine($"checked {p.PagesVisited} of {p.TotalPages} pages"));
        using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(10));
        CheckReport report = env.Check(progress, timeout.Token);
        Console.WriteLine(report.IsHealthy ? $"healthy: {report.EntryCount} entries in {report.TreeCount} trees" : report.ToString());
        foreach (string problem in report.Problems) Console.WriteLine(problem);

        Assert.True(report.IsHealthy);
        Assert.Equal(4, report.TreeCount);
    }

    [Fact]
    public void ApiGuide_compaction()
    {
        using var env = StorageEnvironment.Open(path);
        EnvironmentContents.FillFragmented(env, entries: 2_000);
        string before = EnvironmentContents.Of(env);

        string compactedPath = path + ".compact";
        CompactionResult result = env.CompactTo(compactedPath, new Progress<CompactionProgress>(p =>
            Console.WriteLine($"{p.EntriesCopied:N0} of {p.TotalEntries:N0} entries")));
        Console.WriteLine($"{result.EntryCount} entries in {result.TreeCount} trees: {result.SourcePageCount} pages -> {result.DestinationPageCount}");

        // To switch over: close the source, then swap the directories.
        env.Dispose();
        Directory.Move(path, path + ".old");
        Directory.Move(compactedPath, path);

        using var compacted = StorageEnvironment.Open(path);
        Assert.Equal(before, EnvironmentContents.Of(compacted));
        Assert.True(result.DestinationPageCount < result.SourcePageCount);
    }

    [Fact]
    public void ApiGuide_bulk_load()
    {
        using var env = MemoryEnvironment();

        var rows = Enumerable.Range(0, 10_000)
            .Select(i => KeyValuePair.Create(Encoding.UTF8.GetBytes($"row{i:D8}"), BitConverter.GetBytes(i)));
        long loaded = env.BulkLoad("rows", rows,
            new BulkLoadOptions { BatchItems = 5_000, BatchBytes = 16L << 20, TreeOptions = TreeOptions.None },
            new Progress<BulkLoadProgress>(p => Console.WriteLine($"{p.ItemsLoaded:N0} rows in {p.BatchesCommitted} batches")));
        Console.WriteLine($"{loaded} rows loaded");

        Assert.Equal(10_000, loaded);
        using var tx = env.BeginRead();
        Assert.Equal(10_000, tx.OpenTree("rows").Count);
    }

    [Fact]
    public void Durability_lazy_with_a_checkpoint()
    {
        using var env = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = path, Durability = DurabilityMode.Lazy });
        using (var tx = env.BeginWrite())
        {
            Tree cache = tx.CreateTree("cache");
            for (int i = 0; i < 1_000; i++) cache.Put(BitConverter.GetBytes(i), "cached"u8);
            tx.Commit();          // survives a process crash
        }
        env.Checkpoint();         // now survives power loss as well

        Assert.Equal(env.LastCommittedTransactionId, env.GetStatistics().LastCheckpointTransactionId);
    }

    [Fact]
    public void Tuning_options()
    {
        var options = new StorageEnvironmentOptions
        {
            Path = path,
            Durability = DurabilityMode.Safe,            // Lazy trades power-loss durability for commit latency
            PageSize = 8192,                             // only for a new environment
            JournalFileSize = 64L << 20,                 // largest journal file: files start at 64 KiB and double up to it
            CheckpointThreshold = 8L << 20,              // checkpoint after 8 MiB of journal...
            CheckpointInterval = TimeSpan.FromSeconds(30),  // ...or 30 s after a commit, whichever first
            MaxReaders = 4096,
            WriteTimeout = TimeSpan.FromSeconds(5),
        };
        using var env = StorageEnvironment.Open(options);

        Assert.Equal(8192, env.PageSize);
    }

    [Fact]
    public void Tuning_batching_commits()
    {
        using var env = MemoryEnvironment();

        var batch = Enumerable.Range(0, 1_000).Select(i => ((long)i, new byte[100]));
        using (var tx = env.BeginWrite())
        {
            Tree events = tx.CreateTree("events", TreeOptions.Int64Keys);
            foreach (var (id, payload) in batch) events.Put(id, payload);
            tx.Commit();      // one journal record for all 1,000 changes
        }

        Assert.Equal(1, env.LastCommittedTransactionId);
        using var read = env.BeginRead();
        Assert.Equal(1_000, read.OpenTree("events").Count);
    }

    [Fact]
    public void Every_csharp_example_in_the_docs_is_one_of_these_tests()
    {
        string root = RepositoryCheckout.Root;
        // This class's files, and the GPU and cluster packages' examples, which run in their own test projects.
        var sources = Directory.GetFiles(Path.Combine(root, "tests", "StorageEngine.Tests", "Api"), "DocumentationExamplesTests*.cs")
            .Append(Path.Combine(root, "tests", "StorageEngine.Gpu.Tests", "DocumentationExamplesTests.cs"))
            .Append(Path.Combine(root, "tests", "StorageEngine.Cluster.Tests", "DocumentationExamplesTests.cs"));
        string tests = string.Join("\n", sources.Select(file => Normalize(File.ReadAllText(file))));
        int examples = 0;
        foreach (var doc in Directory.GetFiles(Path.Combine(root, "docs"), "*.md"))
        {
            foreach (Match block in CSharpBlock().Matches(File.ReadAllText(doc)))
            {
                examples++;
                string example = Normalize(block.Groups[1].Value);
                Assert.True(tests.Contains(example, StringComparison.Ordinal),
                    $"An example in {Path.GetFileName(doc)} is not in DocumentationExamplesTests (copy it into a test):\n{block.Groups[1].Value}");
            }
        }
        Assert.True(examples >= 15, $"found only {examples} C# examples in docs/");
    }

    /// <summary>Each line trimmed, blank lines dropped: indentation differs between the docs and the tests.</summary>
    private static string Normalize(string code) =>
        string.Join('\n', code.Split('\n').Select(line => line.Trim()).Where(line => line.Length > 0));

    [GeneratedRegex("```csharp\\n(.*?)```", RegexOptions.Singleline)]
    private static partial Regex CSharpBlock();
}
