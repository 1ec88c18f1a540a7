namespace StorageEngine.Extensions.Hosting;

/// <summary>
/// The settings of <see cref="StorageEnvironmentOptions"/> that configuration can hold (everything but the logger
/// factory, which comes from the host, and <see cref="StorageEnvironmentOptions.AcceptJournalLoss"/>, a one-off
/// salvage decision for code): what a configuration section binds to before it is copied onto the options.
/// Each property left unset keeps the option's default.
/// </summary>
internal sealed class StorageEngineSettings
{
    public string? Path { get; set; }

    public DurabilityMode? Durability { get; set; }

    public int? PageSize { get; set; }

    public long? JournalFileSize { get; set; }

    public long? CheckpointThreshold { get; set; }

    public long? CheckpointMemoryThreshold { get; set; }

    public TimeSpan? CheckpointInterval { get; set; }

    public TimeSpan? WriteTimeout { get; set; }

    public int? MaxReaders { get; set; }

    public bool? ReadOnly { get; set; }

    public bool? ReadAhead { get; set; }

    /// <summary>Copies every setting that was given onto <paramref name="options"/>.</summary>
    public void ApplyTo(StorageEnvironmentOptions options)
    {
        if (Path is not null) options.Path = Path;
        if (Durability is { } durability) options.Durability = durability;
        if (PageSize is { } pageSize) options.PageSize = pageSize;
        if (JournalFileSize is { } journalFileSize) options.JournalFileSize = journalFileSize;
        if (CheckpointThreshold is { } threshold) options.CheckpointThreshold = threshold;
        if (CheckpointMemoryThreshold is { } memoryThreshold) options.CheckpointMemoryThreshold = memoryThreshold;
        if (CheckpointInterval is { } interval) options.CheckpointInterval = interval;
        if (WriteTimeout is { } writeTimeout) options.WriteTimeout = writeTimeout;
        if (MaxReaders is { } maxReaders) options.MaxReaders = maxReaders;
        if (ReadOnly is { } readOnly) options.ReadOnly = readOnly;
        if (ReadAhead is { } readAhead) options.ReadAhead = readAhead;
    }
}
