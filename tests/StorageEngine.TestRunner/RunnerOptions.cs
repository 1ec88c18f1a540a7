using Xunit.Abstractions;

namespace StorageEngine.TestRunner;

/// <summary>The option bag xunit's discoverer and executor read their settings from (xunit.runner.utility's is not served).</summary>
internal sealed class RunnerOptions : ITestFrameworkDiscoveryOptions, ITestFrameworkExecutionOptions
{
    private readonly Dictionary<string, object?> _values = new(StringComparer.Ordinal);

    public TValue GetValue<TValue>(string name) =>
        _values.TryGetValue(name, out object? value) && value is not null ? (TValue)value : default!;

    public void SetValue<TValue>(string name, TValue value) => _values[name] = value;
}
