using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace StorageEngine.Extensions.Hosting;

/// <summary>Registers a <see cref="StorageEnvironment"/> in a service collection.</summary>
public static class StorageEngineServiceCollectionExtensions
{
    /// <summary>
    /// Registers one <see cref="StorageEnvironment"/> (a singleton) opened with the bound
    /// <see cref="IOptions{StorageEnvironmentOptions}"/>, and a hosted service that opens it when the host starts
    /// (so a recovery or a wrong path shows at startup, not at the first request) and closes it cleanly when the
    /// host stops. Its logs go to the host's <see cref="ILoggerFactory"/> unless the options name another.
    /// </summary>
    /// <remarks>
    /// The stop closes the environment with <see cref="StorageEnvironment.DisposeAsync"/> (the final checkpoint's
    /// flushes on a pool thread) and waits for it until the host's stop token fires; the close is not abandoned
    /// then: disposing the host waits for it to finish. The container disposes the environment asynchronously
    /// too, which after the stop does nothing.
    /// </remarks>
    /// <param name="services">The service collection.</param>
    /// <param name="configure">Sets the options (at least <see cref="StorageEnvironmentOptions.Path"/>); applied after any binding.</param>
    /// <returns>The service collection.</returns>
    public static IServiceCollection AddStorageEngine(this IServiceCollection services, Action<StorageEnvironmentOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        var options = services.AddOptions<StorageEnvironmentOptions>();
        if (configure is not null) options.Configure(configure);
        services.TryAddSingleton(static provider =>
        {
            var options = provider.GetRequiredService<IOptions<StorageEnvironmentOptions>>().Value;
            options.LoggerFactory ??= provider.GetService<ILoggerFactory>();
            return StorageEnvironment.Open(options);
        });
        services.AddHostedService<StorageEnvironmentLifetime>();
        return services;
    }

    /// <summary>
    /// Registers the environment like <see cref="AddStorageEngine(IServiceCollection, Action{StorageEnvironmentOptions}?)"/>,
    /// with its options bound from <paramref name="configuration"/> (for example the "StorageEngine" section of
    /// appsettings.json: <c>Path</c>, <c>Durability</c>, <c>PageSize</c>, <c>CheckpointInterval</c> ...).
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configuration">The section holding the options.</param>
    /// <param name="configure">Further settings, applied after the binding.</param>
    /// <returns>The service collection.</returns>
    public static IServiceCollection AddStorageEngine(this IServiceCollection services, IConfiguration configuration,
        Action<StorageEnvironmentOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        services.AddOptions<StorageEnvironmentOptions>().Configure(options =>
        {
            var settings = new StorageEngineSettings();
            configuration.Bind(settings);
            settings.ApplyTo(options);
        });
        return services.AddStorageEngine(configure);
    }
}
