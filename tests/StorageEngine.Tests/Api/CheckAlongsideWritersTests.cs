using System.Text;
using StorageEngine.Platform;
using StorageEngine.Tests.Unit;
using StorageEngine.Transactions;

namespace StorageEngine.Tests.Api;

/// <summary>
/// Check in a read-write environment walks a snapshot while writers keep committing: it holds the writer off only
/// while it copies the snapshot's bitmaps, reports nothing false about pages later commits free or take, and still
/// finds real damage. Progress is coordinated by counts: the check waits, from its progress callback, for the
/// writer to commit; a check that held the writer off would wait in vain.
/// </summary>
public sealed class CheckAlongsideWritersTests
{
    private const int CommitsWanted = 20;
    private static readonly TimeSpan GiveUp = TimeSpan.FromSeconds(60);

    [Fact]
    public void A_writer_keeps_committing_while_a_check_runs_and_the_check_reports_no_false_problem()
    {
        using var env = StorageEnvironment.Open(TestData.SafeOptions(new MemoryFileSystem()));
        EnvironmentContents.FillFragmented(env);
        long pagesBefore = env.GetStatistics().PageCount;

        using var writer = new ChurningWriter(env);
        var (report, committedDuringCheck) = CheckWhileWriting(env, writer);

        Assert.True(committedDuringCheck >= CommitsWanted,
            $"the writer made {committedDuringCheck} commits while the check walked the trees: the check held it off.");
        // The writer rewrote, deleted and inserted entries of the tree being walked: every rewrite copies a page of
        // the snapshot and frees the original, and takes a free page. Read from the live bitmaps, such pages would be
        // "in use and also marked free" or "leaked".
        Assert.True(report.IsHealthy, report.ToString());
        Assert.True(report.PageCount >= pagesBefore);
        writer.Stop();
        Assert.True(env.Check().IsHealthy, "after the writer stopped");
    }

    [Fact]
    public void A_check_alongside_a_writer_still_finds_a_leaked_page()
    {
        using var env = StorageEnvironment.Open(TestData.SafeOptions(new MemoryFileSystem()));
        EnvironmentContents.FillFragmented(env);
        long leaked = LeakOnePage(env);

        using var writer = new ChurningWriter(env);
        var (report, committedDuringCheck) = CheckWhileWriting(env, writer);

        Assert.True(committedDuringCheck >= CommitsWanted, $"the writer made {committedDuringCheck} commits during the check.");
        Assert.Contains($"page {leaked} is neither in use nor marked free (leaked).", report.Problems);
    }

    [Fact]
    public async Task A_check_waits_for_a_commit_still_on_its_way_to_the_journal_and_checks_it()
    {
        var gate = new IoGate { FlushesOf = _ => false, WritesOf = path => Path.GetFileName(path).StartsWith("journal.", StringComparison.Ordinal) };
        var memory = new MemoryFileSystem();
        var options = TestData.SafeOptions(memory);
        options.FileSystem = new GatedFileSystem(memory, gate);
        using var env = StorageEnvironment.Open(options);
        EnvironmentContents.FillFragmented(env, entries: 2_000);
        long entriesBefore = env.Check().EntryCount;

        // An asynchronous commit returns with its journal write still to come: the write is held at the gate, so
        // the writer's view (and its bitmaps) is one transaction ahead of what readers see.
        gate.Arm();
        Task committed;
        using (var tx = env.BeginWrite())
        {
            tx.OpenTree("items").Put("item-late"u8, "v"u8);
            committed = tx.CommitAsync().AsTask();
        }
        Assert.True(gate.WaitUntilReached(GiveUp), "the commit's journal write never reached the gate");
        var check = Task.Run(() => env.Check());
        // Gives the check the time to find the commit in flight; it passes (checking less) if it comes later.
        await Task.Delay(200);
        gate.Release();
        var report = await check.WaitAsync(GiveUp);
        await committed.WaitAsync(GiveUp);

        Assert.True(report.IsHealthy, report.ToString());
        Assert.Equal(entriesBefore + 1, report.EntryCount);
    }

    /// <summary>
    /// Damages the free-space map the way a lost free would: one free page taken in a commit that links it nowhere.
    /// The page stays taken, so later commits never hand it out and the damage stays as it was made.
    /// </summary>
    private static long LeakOnePage(StorageEnvironment env)
    {
        // Overflow values freed and a checkpoint past their commit: their pages are free and reusable.
        using (var free = env.BeginWrite())
        {
            free.DeleteTree("large");
            free.Commit();
        }
        env.Checkpoint();
        using var tx = env.BeginWrite();
        var pages = (PageWriter)tx.Pages;
        long pageCount = pages.PageCount;
        long leaked = env.FreeSpace.Allocate(1, pages, ref pageCount);
        Assert.True(leaked < pages.PageCount, $"no free page to leak: page {leaked} is past the file's {pages.PageCount}");
        tx.OpenTree("numbers").Put(1L, "marks the commit"u8);
        tx.Commit();
        return leaked;
    }

    /// <summary>
    /// Runs a check; at its first report past the start (the walk under way) it waits for
    /// <see cref="CommitsWanted"/> more commits. Returns the report and the commits made between the first and the
    /// last report.
    /// </summary>
    private static (CheckReport Report, long CommittedDuringCheck) CheckWhileWriting(StorageEnvironment env, ChurningWriter writer)
    {
        writer.Start();
        Assert.True(writer.WaitForCommits(1, GiveUp), "the writer did not start committing");
        long atFirstReport = -1;
        bool waited = false;
        var progress = new RecordingProgress<CheckProgress>(p =>
        {
            if (p.PagesVisited == 0 || waited) return;
            waited = true;
            atFirstReport = writer.Commits;
            writer.WaitForCommits(atFirstReport + CommitsWanted, GiveUp);
        });
        var report = env.Check(progress, CancellationToken.None);
        long atLastReport = writer.Commits;
        writer.Stop();
        Assert.True(waited, $"the check made no report past its start ({progress.Reports.Count} reports): the file is too small for the test");
        return (report, atLastReport - atFirstReport);
    }

    /// <summary>A thread that rewrites, deletes and re-inserts entries of the "items" tree, one commit at a time.</summary>
    private sealed class ChurningWriter(StorageEnvironment env) : IDisposable
    {
        private readonly object _gate = new();
        private Thread? _thread;
        private volatile bool _stop;
        private long _commits;
        private Exception? _failure;

        public long Commits => Interlocked.Read(ref _commits);

        public void Start()
        {
            _thread = new Thread(Run) { IsBackground = true, Name = "churning writer" };
            _thread.Start();
        }

        public bool WaitForCommits(long count, TimeSpan timeout)
        {
            lock (_gate)
            {
                var deadline = DateTime.UtcNow + timeout;
                while (Commits < count && _failure is null && !_stop)
                {
                    var left = deadline - DateTime.UtcNow;
                    if (left <= TimeSpan.Zero || !Monitor.Wait(_gate, left)) break;
                }
                return Commits >= count;
            }
        }

        public void Stop()
        {
            _stop = true;
            lock (_gate) Monitor.PulseAll(_gate);
            _thread?.Join();
            if (_failure is not null) throw new InvalidOperationException("the writer failed", _failure);
        }

        public void Dispose() => Stop();

        private void Run()
        {
            var random = new Random(7);
            var value = new byte[300];
            try
            {
                for (int round = 0; !_stop; round++)
                {
                    using (var tx = env.BeginWrite())
                    {
                        var items = tx.OpenTree("items");
                        for (int i = 0; i < 50; i++)
                        {
                            int n = random.Next(20_000);
                            var key = Encoding.ASCII.GetBytes($"item{n:D6}");
                            random.NextBytes(value);
                            if (n % 3 == 0) items.Delete(key);
                            else items.Put(key, value.AsSpan(0, 100 + random.Next(200)));
                        }
                        tx.Commit();
                    }
                    Interlocked.Increment(ref _commits);
                    lock (_gate) Monitor.PulseAll(_gate);
                }
            }
            catch (Exception e)
            {
                _failure = e;
                lock (_gate) Monitor.PulseAll(_gate);
            }
        }
    }
}
