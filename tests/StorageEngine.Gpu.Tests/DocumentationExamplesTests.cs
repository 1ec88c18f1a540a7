namespace StorageEngine.Gpu.Tests;

/// <summary>
/// The StorageEngine.Gpu example of docs/api-guide.md, verbatim (the engine's DocumentationExamplesTests checks
/// that every C# example of the docs is in one of its files or in this one).
/// </summary>
public sealed class DocumentationExamplesTests
{
    [Fact]
    public void ApiGuide_gpu_batches()
    {
        using var env = StorageEnvironment.CreateInMemory();
        var printed = new StringWriter();
        var console = Console.Out;
        Console.SetOut(printed);
        try
        {
            Example(env, out var sorted);
            Assert.Equal([7UL, 19, 42], sorted);
        }
        finally
        {
            Console.SetOut(console);
        }
        Assert.Contains("2 of 3 found", printed.ToString());
    }

    private static void Example(StorageEnvironment env, out ulong[] sorted)
    {
        using (var tx = env.BeginWrite())
        {
            Tree events = tx.CreateTree("events", TreeOptions.Int64Keys);
            for (long id = 0; id < 1_000; id++) events.Put(id, BitConverter.GetBytes(id * 2));
            tx.Commit();
        }
        using var gpu = GpuBackend.Create(new GpuOptions { LookupBreakEven = 64 * 1024 });
        Console.WriteLine($"batches run on: {gpu.DeviceName}");      // "none (...)" on a machine without a GPU
        using (var tx = env.BeginRead())
        {
            var results = new BatchLookupResults();
            gpu.GetMany(tx.OpenTree("events"), [10, 5_000, 999], results);
            Console.WriteLine($"{results.FoundCount} of {results.Count} found");  // 2 of 3
        }
        var keys = new ulong[] { 42, 7, 19 };
        gpu.Sort(keys);                                               // 7, 19, 42
        sorted = keys;
    }
}
