using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace StorageEngine.Extensions.Hosting;

/// <summary>
/// Opens the registered environment when the host starts and closes it cleanly (a final checkpoint, then the
/// files) when the host stops, before the container is disposed: a clean close is what lets the next start skip
/// recovery and lets the read-only tools open the files.
/// </summary>
internal sealed class StorageEnvironmentLifetime(IServiceProvider services) : IHostedService
{
    private StorageEnvironment? _environment;

    public Task StartAsync(CancellationToken cancellationToken)
    {
        _environment = services.GetRequiredService<StorageEnvironment>();
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken)
    {
        // Transactions still open keep the files until they end; the environment closes as the last one does.
        _environment?.Dispose();
        return Task.CompletedTask;
    }
}
