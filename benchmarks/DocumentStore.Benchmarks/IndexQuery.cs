namespace DocumentStore.Benchmarks;

/// <summary>
/// A query on one index: equality when <see cref="High"/> is null, else the inclusive range from
/// <see cref="Low"/> to <see cref="High"/>. Values are strings (city) or integers (age).
/// </summary>
internal sealed record IndexQuery(string Field, object Low, object? High);
