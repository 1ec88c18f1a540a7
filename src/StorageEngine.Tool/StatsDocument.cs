namespace StorageEngine.Tool;

/// <summary>What <c>stats --json</c> prints.</summary>
internal sealed record StatsDocument(EnvironmentStatistics Statistics, IReadOnlyList<TreeSizes> Trees);
