using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace StorageEngine.Extensions.Hosting;

/// <summary>
/// Opens the registered environment when the host starts and closes it cleanly (a final checkpoint, then the
/// files) when the host stops, before the container is disposed: a clean close is what lets the next start skip
/// recovery and lets the read-only tools open the files.
/// </summary>
/// <remarks>
/// The close goes through <see cref="StorageEnvironment.DisposeAsync"/>: the checkpointer's stop and the final
/// checkpoint's flushes run on a pool thread, and <see cref="StopAsync"/> awaits them without blocking the thread
/// that stops the host. When the stop token fires first (the host's <c>ShutdownTimeout</c>), StopAsync stops
/// waiting, logs a warning and returns, as <see cref="BackgroundService"/> does; the close is never abandoned: it
/// goes on, and disposing this service (the container does, when the host is disposed, as <c>RunAsync</c> does on
/// its way out) waits for it to finish. A write transaction still open at the stop keeps the environment open
/// until it ends, as with <see cref="StorageEnvironment.Dispose"/>: the close then runs as that transaction ends.
/// </remarks>
internal sealed partial class StorageEnvironmentLifetime(IServiceProvider services) : IHostedService, IAsyncDisposable, IDisposable
{
    private StorageEnvironment? _environment;
    // The close StopAsync began, when it stopped waiting before the close finished: disposal waits for it.
    private Task? _unfinishedClose;

    public Task StartAsync(CancellationToken cancellationToken)
    {
        _environment = services.GetRequiredService<StorageEnvironment>();
        return Task.CompletedTask;
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        if (_environment is not { } environment) return;
        // A second call (or the container's disposal of the environment) finds the close requested and returns at once.
        var closing = environment.DisposeAsync().AsTask();
        try
        {
            await closing.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested && !closing.IsCompleted)
        {
            Volatile.Write(ref _unfinishedClose, closing);
            Log.StopWaitEnded(Logger, environment.Directory);
        }
    }

    /// <summary>Waits for a close that the stop token left unfinished; its failure, if any, is logged, not thrown (disposal does not throw).</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _unfinishedClose, null) is not { } closing) return;
        await closing.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        ReportLateFailure(closing);
    }

    /// <summary>
    /// As <see cref="DisposeAsync"/>, blocking: for a container disposed synchronously (the host itself disposes
    /// its container asynchronously).
    /// </summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _unfinishedClose, null) is not { } closing) return;
        closing.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing).GetAwaiter().GetResult();
        ReportLateFailure(closing);
    }

    private void ReportLateFailure(Task closing)
    {
        if (closing.Exception is { } failure) Log.LateCloseFailed(Logger, _environment!.Directory, failure.GetBaseException());
    }

    private ILogger Logger => (ILogger?)services.GetService<ILoggerFactory>()?.CreateLogger<StorageEnvironmentLifetime>() ?? NullLogger.Instance;

    /// <summary>The hosting package's events: 6xxx (the engine's own are 1xxx to 5xxx).</summary>
    private static partial class Log
    {
        [LoggerMessage(EventId = 6001, EventName = "StopWaitEnded", Level = LogLevel.Warning,
            Message = "The host stopped waiting for environment {Path} to close (the stop token fired); the close goes on, and disposing the host waits for it.")]
        public static partial void StopWaitEnded(ILogger logger, string path);

        [LoggerMessage(EventId = 6002, EventName = "LateCloseFailed", Level = LogLevel.Error,
            Message = "Closing environment {Path}, which went on after the host stopped waiting, failed.")]
        public static partial void LateCloseFailed(ILogger logger, string path, Exception exception);
    }
}
