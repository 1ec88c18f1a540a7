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
}
