using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace StorageEngine.Extensions.Hosting;

/// <summary>Adds the <see cref="StorageEnvironmentHealthCheck"/> to the host's health checks.</summary>
public static class StorageEngineHealthChecksBuilderExtensions
{
    /// <summary>
    /// Adds a check of the environment registered with
    /// <see cref="StorageEngineServiceCollectionExtensions.AddStorageEngine(IServiceCollection, Action{StorageEnvironmentOptions}?)"/>.
    /// </summary>
    /// <param name="builder">The health checks builder (<c>services.AddHealthChecks()</c>).</param>
    /// <param name="name">The check's name in reports.</param>
    /// <param name="tags">Tags to filter checks by (for example "ready").</param>
    /// <returns>The builder.</returns>
    public static IHealthChecksBuilder AddStorageEngine(this IHealthChecksBuilder builder, string name = "storageengine", IEnumerable<string>? tags = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        return builder.Add(new HealthCheckRegistration(name,
            static provider => new StorageEnvironmentHealthCheck(provider.GetRequiredService<StorageEnvironment>()),
            failureStatus: null, tags));
    }
}
