namespace DocumentStore.Tests;

public sealed record Address(string Street, string Country);
