namespace DocumentStore.Benchmarks;

/// <summary>A generated document: its id and JSON text (about 1 KB, without the id).</summary>
internal sealed record SampleDocument(string Id, string Json);
