namespace StorageEngine.Tool;

/// <summary>One tree in <c>info --json</c>.</summary>
internal sealed record InfoTreeDocument(string Name, bool Int64Keys, TreeStatistics Statistics);
