using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace StorageEngine.Extensions.Hosting.Tests;

/// <summary>The environment registered in a generic host: opened at start, closed cleanly at stop, bound from configuration.</summary>
public sealed class HostedEnvironmentTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "se-hosting-" + Guid.NewGuid().ToString("N"));

    private string DataPath => Path.Combine(_root, "data");

    private static IHost BuildHost(Action<HostApplicationBuilder> configure)
    {
        var builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings());
        configure(builder);
        return builder.Build();
    }

    [Fact]
    public async Task The_host_opens_the_environment_at_start_and_closes_it_cleanly_at_stop()
    {
        using var host = BuildHost(b => b.Services.AddStorageEngine(o => o.Path = DataPath));
        await host.StartAsync();
        var env = host.Services.GetRequiredService<StorageEnvironment>();
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("k"u8, "v"u8);
            tx.Commit();
        }

        await host.StopAsync();

        Assert.False(env.GetHealth().IsOpen);
        // A read-only open refuses an environment that was not closed cleanly: this one opens.
        using var reopened = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = DataPath, ReadOnly = true });
        using var read = reopened.BeginRead();
        Assert.Equal("v"u8.ToArray(), read.OpenTree("t").Get("k"u8));
    }

    [Fact]
    public async Task Options_bind_from_configuration_and_the_delegate_applies_after_the_binding()
    {
        using var host = BuildHost(b =>
        {
            b.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
            {
                ["StorageEngine:Path"] = Path.Combine(_root, "ignored"),
                ["StorageEngine:Durability"] = "Lazy",
                ["StorageEngine:PageSize"] = "8192",
                ["StorageEngine:CheckpointInterval"] = "00:00:05",
                ["StorageEngine:MaxReaders"] = "64",
                ["StorageEngine:CheckpointMemoryThreshold"] = "8388608",
                ["StorageEngine:ReadAhead"] = "true",
            });
            b.Services.AddStorageEngine(b.Configuration.GetSection("StorageEngine"), o => o.Path = DataPath);
        });
        await host.StartAsync();

        var options = host.Services.GetRequiredService<IOptions<StorageEnvironmentOptions>>().Value;
        var env = host.Services.GetRequiredService<StorageEnvironment>();
        Assert.Equal(DataPath, options.Path);
        Assert.Equal(DurabilityMode.Lazy, env.Durability);
        Assert.Equal(8192, env.PageSize);
        Assert.Equal(TimeSpan.FromSeconds(5), options.CheckpointInterval);
        Assert.Equal(64, options.MaxReaders);
        Assert.Equal(8L << 20, options.CheckpointMemoryThreshold);
        Assert.True(options.ReadAhead);
        Assert.Equal(Path.GetFullPath(DataPath), env.Directory);
        Assert.NotNull(options.LoggerFactory);
        await host.StopAsync();
    }

    [Fact]
    public void Configuration_can_set_every_public_option_but_the_logger_factory_and_accepting_journal_loss()
    {
        // The logger factory comes from the host. Accepting a lost journal is a one-off salvage decision (it deletes
        // journal files), not something a configuration file should keep doing at every start: code sets it.
        string[] notFromConfiguration = [nameof(StorageEnvironmentOptions.LoggerFactory), nameof(StorageEnvironmentOptions.AcceptJournalLoss)];
        var settable = typeof(StorageEnvironmentOptions).GetProperties()
            .Where(p => p.CanWrite && p.SetMethod!.IsPublic && !notFromConfiguration.Contains(p.Name))
            .Select(p => p.Name);
        var bound = typeof(StorageEngineSettings).GetProperties().Select(p => p.Name).ToHashSet();
        string[] missing = settable.Where(name => !bound.Contains(name)).ToArray();
        Assert.True(missing.Length == 0, $"options configuration cannot set: {string.Join(", ", missing)}");
    }

    [Fact]
    public async Task A_path_that_cannot_hold_an_environment_fails_the_host_at_start()
    {
        Directory.CreateDirectory(_root);
        string file = Path.Combine(_root, "a-file");
        File.WriteAllText(file, "not a directory");
        using var host = BuildHost(b => b.Services.AddStorageEngine(o => o.Path = file));

        var failure = await Record.ExceptionAsync(() => host.StartAsync());

        Assert.NotNull(failure);
        Assert.True(failure is IOException or StorageException or UnauthorizedAccessException, failure.ToString());
    }

    [Fact]
    public async Task The_health_check_is_healthy_when_writable_degraded_while_the_writer_is_held_and_unhealthy_once_closed()
    {
        using var host = BuildHost(b =>
        {
            b.Services.AddStorageEngine(o => o.Path = DataPath);
            b.Services.AddHealthChecks().AddStorageEngine(tags: ["ready"]);
        });
        await host.StartAsync();
        var checks = host.Services.GetRequiredService<HealthCheckService>();
        var env = host.Services.GetRequiredService<StorageEnvironment>();

        var healthy = await checks.CheckHealthAsync();
        Assert.Equal(HealthStatus.Healthy, healthy.Status);
        Assert.Equal(HealthStatus.Healthy, healthy.Entries["storageengine"].Status);
        Assert.Contains("ready", healthy.Entries["storageengine"].Tags);

        using (var held = env.BeginWrite())
        {
            // The check runs on another thread; the writer is this thread's until disposed.
            var degraded = await Task.Run(() => checks.CheckHealthAsync());
            Assert.Equal(HealthStatus.Degraded, degraded.Entries["storageengine"].Status);
        }

        await host.StopAsync();
        var closed = await checks.CheckHealthAsync();
        Assert.Equal(HealthStatus.Unhealthy, closed.Entries["storageengine"].Status);
        Assert.Contains("closed", closed.Entries["storageengine"].Description);
    }

    [Fact]
    public async Task The_health_check_waits_for_a_held_writer_without_blocking_its_caller()
    {
        using var env = StorageEnvironment.Open(DataPath);
        var check = new StorageEnvironmentHealthCheck(env);
        var context = new HealthCheckContext
        {
            Registration = new HealthCheckRegistration("storageengine", check, HealthStatus.Unhealthy, tags: null),
        };

        Task<HealthCheckResult> pending;
        using (env.BeginWrite())
        {
            pending = check.CheckHealthAsync(context);
            // The call came back while it waits for the writer: the wait holds no thread.
            Assert.False(pending.IsCompleted);
            var result = await pending;
            Assert.Equal(HealthStatus.Degraded, result.Status);
            Assert.Contains("held the writer", result.Description);
        }

        Assert.Equal(HealthStatus.Healthy, (await check.CheckHealthAsync(context)).Status);
        // The writer the check took was given back: a write starts at once.
        using var next = env.BeginWrite(TimeSpan.Zero);
    }

    [Fact]
    public async Task A_read_only_environment_is_healthy_without_taking_the_writer()
    {
        using (var env = StorageEnvironment.Open(DataPath)) { }
        using var host = BuildHost(b =>
        {
            b.Services.AddStorageEngine(o => { o.Path = DataPath; o.ReadOnly = true; });
            b.Services.AddHealthChecks().AddStorageEngine();
        });
        await host.StartAsync();

        var report = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();

        Assert.Equal(HealthStatus.Healthy, report.Status);
        Assert.Contains("read-only", report.Entries["storageengine"].Description);
        await host.StopAsync();
    }

    public void Dispose()
    {
        if (Directory.Exists(_root)) Directory.Delete(_root, recursive: true);
    }
}
