using System.Reflection;
using Microsoft.Extensions.Logging;
using StorageEngine.Common;

namespace StorageEngine.Tests.Api;

/// <summary>Every event the engine logs has an id of its own, so that operators can filter and alert on it.</summary>
public sealed class LogEventTests
{
    private static List<LoggerMessageAttribute> Events() =>
        typeof(EngineLog).GetMethods(BindingFlags.Public | BindingFlags.Static)
            .Select(m => m.GetCustomAttribute<LoggerMessageAttribute>() ?? throw new InvalidOperationException($"EngineLog.{m.Name} is not a [LoggerMessage] method."))
            .ToList();

    [Fact]
    public void Every_log_event_has_a_distinct_nonzero_id_and_name()
    {
        var events = Events();

        Assert.True(events.Count >= 19);
        Assert.All(events, e => Assert.True(e.EventId > 0 && !string.IsNullOrEmpty(e.EventName) && !string.IsNullOrEmpty(e.Message)));
        Assert.Equal(events.Count, events.Select(e => e.EventId).Distinct().Count());
        Assert.Equal(events.Count, events.Select(e => e.EventName).Distinct().Count());
    }

    [Fact]
    public void Failures_are_warnings_or_errors_and_routine_events_are_not()
    {
        foreach (var method in typeof(EngineLog).GetMethods(BindingFlags.Public | BindingFlags.Static))
        {
            var attribute = method.GetCustomAttribute<LoggerMessageAttribute>()!;
            bool reportsFailure = method.GetParameters().Any(p => p.ParameterType == typeof(Exception));
            if (reportsFailure) Assert.True(attribute.Level >= LogLevel.Warning, $"{method.Name} reports a failure at {attribute.Level}");
        }
    }

    [Fact]
    public void No_engine_source_logs_without_an_event_id()
    {
        string src = Path.Combine(RepositoryRoot(), "src", "StorageEngine");
        var offenders = Directory.EnumerateFiles(src, "*.cs", SearchOption.AllDirectories)
            .Where(f => !f.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal))
            .SelectMany(f => File.ReadLines(f).Select((line, i) => (File: Path.GetRelativePath(src, f), Line: i + 1, Text: line)))
            .Where(l => System.Text.RegularExpressions.Regex.IsMatch(l.Text, @"\.Log(Trace|Debug|Information|Warning|Error|Critical)\("))
            .Select(l => $"{l.File}:{l.Line}")
            .ToList();

        Assert.True(offenders.Count == 0, "log calls without an EventId (use EngineLog): " + string.Join(", ", offenders));
    }

    [Fact]
    public void Opening_committing_checkpointing_recovering_and_closing_log_only_events_with_ids()
    {
        using var provider = new RecordingLoggerFactory();
        var factory = provider;
        using var dir = new Unit.TempDirectory("log-events");
        string live = dir.File("live"), crashed = dir.File("crashed");
        using (var env = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = live, LoggerFactory = factory, CheckpointInterval = TimeSpan.FromHours(1) }))
        {
            using (var tx = env.BeginWrite())
            {
                tx.CreateTree("t").Put("k"u8, "v"u8);
                tx.Commit();
            }
            Directory.CreateDirectory(crashed);
            foreach (var file in Directory.GetFiles(live))
                if (Path.GetFileName(file) != "LOCK") File.Copy(file, Path.Combine(crashed, Path.GetFileName(file)));
            env.Checkpoint();
        }
        using (StorageEnvironment.Open(new StorageEnvironmentOptions { Path = crashed, LoggerFactory = factory })) { }

        var events = provider.Events.ToList();
        Assert.All(events, e => Assert.True(e.Id > 0, $"'{e.Message}' was logged with event id 0"));
        foreach (var name in new[] { "EnvironmentCreated", "EnvironmentOpened", "CheckpointWritten", "RecoveryReplayed", "EnvironmentClosed" })
            Assert.Contains(events, e => e.Name == name);
    }

    private static string RepositoryRoot([System.Runtime.CompilerServices.CallerFilePath] string here = "") =>
        Path.GetFullPath(Path.Combine(Path.GetDirectoryName(here)!, "..", "..", ".."));

    private sealed class RecordingLoggerFactory : ILoggerFactory
    {
        public System.Collections.Concurrent.ConcurrentQueue<(int Id, string? Name, string Message)> Events { get; } = new();

        public ILogger CreateLogger(string categoryName) => new Recorder(this);

        public void AddProvider(ILoggerProvider provider) { }

        public void Dispose() { }

        private sealed class Recorder(RecordingLoggerFactory owner) : ILogger
        {
            public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

            public bool IsEnabled(LogLevel logLevel) => true;

            public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
                owner.Events.Enqueue((eventId.Id, eventId.Name, formatter(state, exception)));
        }
    }
}
