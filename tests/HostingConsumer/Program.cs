// What a user writes after `dotnet add package StorageEngine.Extensions.Hosting`: register the environment in a
// generic host from configuration, use it, ask its health check, stop the host. Exits non-zero when anything is
// off, so that .ci/package-smoke.sh can rely on it.

using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using StorageEngine;
using StorageEngine.Extensions.Hosting;

string directory = Path.Combine(Path.GetTempPath(), "storageengine-hosting-consumer-" + Guid.NewGuid().ToString("N"));
try
{
    var builder = Host.CreateApplicationBuilder(args);
    builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?> { ["StorageEngine:Path"] = directory });
    builder.Services.AddStorageEngine(builder.Configuration.GetSection("StorageEngine"));
    builder.Services.AddHealthChecks().AddStorageEngine();
    using var host = builder.Build();
    await host.StartAsync();

    var env = host.Services.GetRequiredService<StorageEnvironment>();
    using (var tx = env.BeginWrite())
    {
        tx.CreateTree("orders").Put("o1"u8, "{}"u8);
        tx.Commit();
    }
    var health = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();
    Require(health.Status == HealthStatus.Healthy, $"health check: {health.Status}");
    await host.StopAsync();
    Require(!env.GetHealth().IsOpen, "the environment is still open after the host stopped");

    using (var reopened = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = directory, ReadOnly = true }))
    using (var read = reopened.BeginRead())
        Require(read.OpenTree("orders").ContainsKey("o1"u8), "the committed entry is missing after the host stopped");
    Console.WriteLine("HostingConsumer: StorageEngine.Extensions.Hosting works: registered from configuration, healthy, closed cleanly at stop");
    return 0;
}
catch (Exception e)
{
    Console.Error.WriteLine("HostingConsumer failed: " + e);
    return 1;
}
finally
{
    if (Directory.Exists(directory)) Directory.Delete(directory, recursive: true);
}

static void Require(bool condition, string message)
{
    if (!condition) throw new InvalidOperationException(message);
}
