namespace StorageEngine.Tool;

/// <summary>What <c>info --json</c> prints.</summary>
internal sealed record InfoDocument(string Path, EnvironmentStatistics Statistics, IReadOnlyList<InfoTreeDocument> Trees);
