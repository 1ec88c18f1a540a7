namespace DocumentStore.Tests;

public sealed record Person(string Name, double Age, string City, string[]? Tags = null, Address? Address = null);
