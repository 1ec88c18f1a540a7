using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace StorageEngine.Extensions.Hosting;

/// <summary>
/// Reports the registered environment: Unhealthy when it is closed or a failed journal or data-file write stopped
/// its writes (the data says why); Degraded when the writer could not be had within
/// <see cref="WriterWait"/> (a long write transaction holds it); Healthy otherwise. A read-only environment or a
/// replica is Healthy without the writer test: it takes no writes by design.
/// </summary>
public sealed class StorageEnvironmentHealthCheck(StorageEnvironment environment) : IHealthCheck
{
    /// <summary>How long the check waits for the writer before it reports Degraded.</summary>
    public static readonly TimeSpan WriterWait = TimeSpan.FromSeconds(1);

    /// <inheritdoc />
    public async Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        var health = environment.GetHealth();
        var data = new Dictionary<string, object>
        {
            ["directory"] = environment.Directory,
            ["lastCommittedTransactionId"] = health.LastCommittedTransactionId,
            ["readOnly"] = health.IsReadOnly,
            ["replica"] = health.IsReplica,
        };
        if (!health.IsOpen) return HealthCheckResult.Unhealthy("The environment has been closed.", data: data);
        if (health.WriteFailure is { } failure)
        {
            data["writeFailure"] = failure;
            return HealthCheckResult.Unhealthy($"The environment accepts no more writes: {failure}", data: data);
        }
        if (health.IsReadOnly || health.IsReplica)
            return HealthCheckResult.Healthy($"Open {(health.IsReadOnly ? "read-only" : "as a replica")}.", data);
        using var writerWait = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        writerWait.CancelAfter(WriterWait);
        try
        {
            // Taking the writer and discarding the empty transaction proves a write could start now. The wait
            // blocks no thread: a health endpoint polled while a long transaction runs must not pile up threads.
            await using var probe = await environment.BeginWriteAsync(writerWait.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            return HealthCheckResult.Degraded(
                $"A write transaction held the writer for longer than the check waits ({WriterWait.TotalSeconds:0.#} s).", data: data);
        }
        catch (TimeoutException e)
        {
            return HealthCheckResult.Degraded(e.Message, data: data);
        }
        catch (ObjectDisposedException)
        {
            return HealthCheckResult.Unhealthy("The environment has been closed.", data: data);
        }
        catch (StorageException e)
        {
            return HealthCheckResult.Unhealthy(e.Message, e, data);
        }
        return HealthCheckResult.Healthy("Open and writable; the journal accepts writes.", data);
    }
}
