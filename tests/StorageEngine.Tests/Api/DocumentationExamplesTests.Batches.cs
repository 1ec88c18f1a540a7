using System.Text;

namespace StorageEngine.Tests.Api;

// The examples of docs/api-guide.md's "Batches" section.
public sealed partial class DocumentationExamplesTests
{
    /// <summary>Runs an example and returns the lines it printed.</summary>
    private static string[] PrintedLines(Action example)
    {
        var printed = new StringWriter();
        var console = Console.Out;
        Console.SetOut(printed);
        try
        {
            example();
        }
        finally
        {
            Console.SetOut(console);
        }
        return printed.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
    }

    [Fact]
    public void ApiGuide_batches()
    {
        using var env = MemoryEnvironment();
        var printed = PrintedLines(() =>
        {
            using (var tx = env.BeginWrite())
            {
                Tree prices = tx.CreateTree("prices", TreeOptions.Int64Keys);
                var batch = new WriteBatch();
                batch.Put(3, "30"u8);
                batch.Put(1, "10"u8);
                batch.Put(2, "20"u8);
                batch.Delete(2);                 // the last write of a key wins
                batch.Put(3, "33"u8);
                prices.Apply(batch);             // sorted, then applied in key order
                tx.Commit();
            }
            using (var tx = env.BeginRead())
            {
                Tree prices = tx.OpenTree("prices");
                var results = new BatchLookupResults();          // reusable: keeps its buffers
                prices.GetMany([3, 2, 1, 3], results);
                for (int i = 0; i < results.Count; i++)
                    Console.WriteLine(results.TryGetValue(i, out var value) ? Encoding.UTF8.GetString(value) : "absent");
                // 33, absent, 10, 33
            }
        });
        Assert.Equal(["33", "absent", "10", "33"], printed);
    }

    [Fact]
    public void ApiGuide_writes_from_many_threads()
    {
        using var env = MemoryEnvironment();
        var printed = PrintedLines(() =>
        {
            using (var tx = env.BeginWrite())
            {
                tx.CreateTree("sessions");
                tx.Commit();
            }
            Parallel.For(0, 4, worker =>
            {
                var batch = new WriteBatch();                    // one per thread, reused
                for (int i = 0; i < 250; i++)
                {
                    batch.Clear();
                    batch.Put(Encoding.UTF8.GetBytes($"user-{worker}-{i}"), "active"u8);
                    batch.Delete(Encoding.UTF8.GetBytes($"user-{worker}-{i - 1}"));
                    env.Write("sessions", batch);                // atomic; committed when it returns
                }
            });
            using (var tx = env.BeginRead())
                Console.WriteLine(tx.OpenTree("sessions").Count); // 4
        });
        Assert.Equal(["4"], printed);
    }

    [Fact]
    public async Task ApiGuide_writes_from_many_tasks()
    {
        using var env = MemoryEnvironment();
        var printed = new StringWriter();
        var console = Console.Out;
        Console.SetOut(printed);
        try
        {
            using (var tx = env.BeginWrite())
            {
                tx.CreateTree("visits");
                tx.Commit();
            }
            var requests = Enumerable.Range(0, 100).Select(async request =>
            {
                var batch = new WriteBatch();                    // one per call: it must not change until the task completes
                batch.Put(Encoding.UTF8.GetBytes($"visit-{request}"), "/home"u8);
                await env.WriteAsync("visits", batch);           // atomic; committed when the task completes
            });
            await Task.WhenAll(requests);
            using (var tx = env.BeginRead())
                Console.WriteLine(tx.OpenTree("visits").Count);  // 100
        }
        finally
        {
            Console.SetOut(console);
        }
        Assert.Equal(["100"], printed.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
    }
}
