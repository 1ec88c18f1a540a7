using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using System.Collections.Concurrent;
using StorageEngine.Platform;
using StorageEngine.Tests.Api;

namespace StorageEngine.Extensions.Hosting.Tests;

/// <summary>
/// How the host closes the environment: through <see cref="StorageEnvironment.DisposeAsync"/>, so that the thread
/// that stops the host is not blocked on the final checkpoint's flushes; a stop token that fires ends the wait, not
/// the close, and disposing the host waits for the close to finish. The close's flushes are held at a gate to see
/// who waits for them.
/// </summary>
public sealed class HostedShutdownTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    private static void Configure(StorageEnvironmentOptions options, IFileSystem fileSystem)
    {
        options.Path = "/db";
        options.Durability = DurabilityMode.Safe;
        options.FileSystem = fileSystem;
        // No background checkpoint: the final one has the commits to write.
        options.CheckpointThreshold = long.MaxValue;
        options.CheckpointInterval = TimeSpan.FromHours(1);
    }

    private static IHost BuildHost(IFileSystem fileSystem, ILoggerProvider? logs = null)
    {
        var builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings());
        if (logs is not null) builder.Logging.AddProvider(logs);
        builder.Services.AddStorageEngine(o => Configure(o, fileSystem));
        return builder.Build();
    }

    /// <summary>Keeps the id of every event logged at Warning or above.</summary>
    private sealed class WarningIds : ILoggerProvider, ILogger
    {
        public ConcurrentQueue<int> Ids { get; } = new();

        public ILogger CreateLogger(string categoryName) => this;

        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Warning;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (IsEnabled(logLevel)) Ids.Enqueue(eventId.Id);
        }

        public void Dispose()
        {
        }
    }

    private static void Commit(StorageEnvironment env, int count)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (int i = 0; i < count; i++) tree.Put(Key(i), "value"u8);
        tx.Commit();
    }

    private static byte[] Key(int i) => BitConverter.GetBytes(i);

    /// <summary>Reopens the files read-only (which refuses an environment not closed cleanly) and counts the entries.</summary>
    private static long CountAfterCleanClose(MemoryFileSystem memory)
    {
        var options = new StorageEnvironmentOptions { ReadOnly = true };
        Configure(options, memory);
        using var env = StorageEnvironment.Open(options);
        using var read = env.BeginRead();
        return read.OpenTree("t").Count;
    }

    private static bool IsLocked(MemoryFileSystem memory)
    {
        var options = new StorageEnvironmentOptions();
        Configure(options, memory);
        try
        {
            StorageEnvironment.Open(options).Dispose();
            return false;
        }
        catch (EnvironmentLockedException)
        {
            return true;
        }
    }

    [Fact]
    public async Task StopAsync_returns_to_the_stopping_thread_while_the_final_flush_is_held_and_completes_once_closed()
    {
        var memory = new MemoryFileSystem();
        var gate = new IoGate();
        using var host = BuildHost(new GatedFileSystem(memory, gate));
        await host.StartAsync();
        Commit(host.Services.GetRequiredService<StorageEnvironment>(), 100);

        gate.Arm();
        var stopping = host.StopAsync();
        bool returnedBeforeTheFlush = !stopping.IsCompleted;
        bool flushReached = gate.WaitUntilReached(Patience);
        bool waitedForTheClose = !stopping.IsCompleted;
        gate.Release();
        await stopping.WaitAsync(Patience);

        Assert.True(flushReached, "the close never flushed: the test checks nothing");
        Assert.True(returnedBeforeTheFlush, "StopAsync returned only after the final checkpoint's flush: it blocked the stopping thread");
        Assert.True(waitedForTheClose, "StopAsync completed before the close had finished");
        Assert.Equal(100, CountAfterCleanClose(memory));
    }

    [Fact]
    public async Task A_stop_token_that_fires_during_the_close_ends_StopAsync_and_disposing_the_host_waits_for_the_close()
    {
        var memory = new MemoryFileSystem();
        var gate = new IoGate();
        var logs = new WarningIds();
        var host = BuildHost(new GatedFileSystem(memory, gate), logs);
        await host.StartAsync();
        Commit(host.Services.GetRequiredService<StorageEnvironment>(), 100);

        gate.Arm();
        using var stopToken = new CancellationTokenSource();
        var stopping = host.StopAsync(stopToken.Token);
        Assert.True(gate.WaitUntilReached(Patience), "the close never flushed: the test checks nothing");
        stopToken.Cancel();
        // The host stops waiting (without an exception, as BackgroundService does); the close goes on.
        await stopping.WaitAsync(Patience);
        Assert.True(IsLocked(memory), "the close had finished when StopAsync returned: the flush was not held");
        Assert.Contains(6001, logs.Ids);

        var disposing = ((IAsyncDisposable)host).DisposeAsync().AsTask();
        await Task.Delay(50);
        bool disposalWaited = !disposing.IsCompleted;
        gate.Release();
        await disposing.WaitAsync(Patience);

        Assert.True(disposalWaited, "disposing the host did not wait for the close under way");
        Assert.False(IsLocked(memory));
        Assert.Equal(100, CountAfterCleanClose(memory));
    }

    [Fact]
    public async Task The_container_closes_the_environment_through_DisposeAsync_and_a_second_disposal_changes_nothing()
    {
        var memory = new MemoryFileSystem();
        var gate = new IoGate();
        var services = new ServiceCollection();
        services.AddStorageEngine(o => Configure(o, new GatedFileSystem(memory, gate)));
        var provider = services.BuildServiceProvider();
        var env = provider.GetRequiredService<StorageEnvironment>();
        Commit(env, 10);

        gate.Arm();
        var disposing = provider.DisposeAsync();
        bool returnedBeforeTheFlush = !disposing.IsCompleted;
        Assert.True(gate.WaitUntilReached(Patience), "the close never flushed: the test checks nothing");
        gate.Release();
        await disposing;

        Assert.True(returnedBeforeTheFlush, "the container disposed the environment synchronously (Dispose, not DisposeAsync)");
        Assert.Equal(10, CountAfterCleanClose(memory));
        // Disposed again, by the container or directly: nothing happens.
        provider.Dispose();
        await env.DisposeAsync();
        env.Dispose();
        Assert.Equal(10, CountAfterCleanClose(memory));
    }

    [Fact]
    public async Task Stopping_then_disposing_the_host_closes_once_and_the_files_reopen()
    {
        var memory = new MemoryFileSystem();
        var host = BuildHost(memory);
        await host.StartAsync();
        var env = host.Services.GetRequiredService<StorageEnvironment>();
        Commit(env, 10);

        await host.StopAsync();
        Assert.False(env.GetHealth().IsOpen);
        Assert.False(IsLocked(memory));
        // The container disposes the closed environment again (DisposeAsync), and the hosted service has nothing to wait for.
        await ((IAsyncDisposable)host).DisposeAsync();
        host.Dispose();

        Assert.Equal(10, CountAfterCleanClose(memory));
    }

    [Fact]
    public async Task A_write_transaction_open_at_stop_lets_StopAsync_return_and_the_environment_closes_as_it_ends()
    {
        var memory = new MemoryFileSystem();
        var host = BuildHost(memory);
        await host.StartAsync();
        var env = host.Services.GetRequiredService<StorageEnvironment>();
        Commit(env, 10);
        var tx = env.BeginWrite();

        await host.StopAsync().WaitAsync(Patience);
        await ((IAsyncDisposable)host).DisposeAsync().AsTask().WaitAsync(Patience);

        Assert.True(IsLocked(memory), "the environment closed under an open write transaction");
        Assert.Throws<ObjectDisposedException>(() => tx.Commit());
        tx.Dispose();
        Assert.False(IsLocked(memory));
        Assert.Equal(10, CountAfterCleanClose(memory));
    }
}
