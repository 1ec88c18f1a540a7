using Microsoft.Extensions.Logging;

namespace StorageEngine.Gpu.Tests;

/// <summary>
/// Without a CUDA device (as on the machines that run the tests) the backend starts, says once that batches run on
/// the CPU, and serves every call through the engine's CPU path: never an error.
/// </summary>
public sealed class FallbackTests
{
    private sealed class RecordingLogger : ILogger
    {
        public List<(LogLevel Level, string Message)> Entries { get; } = [];

        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            Entries.Add((logLevel, formatter(state, exception)));
    }

    [Fact]
    public void Without_a_GPU_every_batch_takes_the_CPU_path_and_that_is_logged_once()
    {
        var logger = new RecordingLogger();
        using var backend = GpuBackend.Create(new GpuOptions { Logger = logger, LookupBreakEven = 1, SortBreakEven = 1 });
        if (backend.IsAccelerated) return; // a machine with a GPU: the other tests cover it

        using var env = StorageEnvironment.CreateInMemory();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("ints", TreeOptions.Int64Keys);
            for (long key = 0; key < 100; key++) tree.Put(key, "v"u8);
            tx.Commit();
        }
        using var read = env.BeginRead();
        var results = new BatchLookupResults();
        backend.GetMany(read.OpenTree("ints"), [5, 500, 7], results);
        backend.GetMany(read.OpenTree("ints"), [1], results);
        var keys = new ulong[] { 3, 1, 2 };
        backend.Sort(keys);

        Assert.Equal(BatchRoute.Cpu, backend.LastLookupRoute);
        Assert.Equal(BatchRoute.Cpu, backend.LastSortRoute);
        Assert.Equal([1UL, 2, 3], keys);
        Assert.True(results.IsFound(0));
        Assert.StartsWith("none", backend.DeviceName);
        Assert.Single(logger.Entries, e => e.Level == LogLevel.Warning);
    }

    [Fact]
    public void The_driver_resolver_answers_only_for_the_cuda_name_and_registers_once()
    {
        CudaLibraryResolver.Register();
        CudaLibraryResolver.Register();
        Assert.Equal(IntPtr.Zero, CudaLibraryResolver.Resolve(typeof(FallbackTests).Assembly, "libsomethingelse"));
        // On a machine without the driver the answer is zero (probing goes on); with one, a handle.
        _ = CudaLibraryResolver.Resolve(typeof(FallbackTests).Assembly, "cuda");
        Assert.Equal(["libcuda.so.1", "libcuda.so"], CudaLibraryResolver.Candidates);
    }
}
