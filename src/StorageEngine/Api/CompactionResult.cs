namespace StorageEngine;

/// <summary>What <see cref="StorageEnvironment.CompactTo(string, IProgress{CompactionProgress}?, CancellationToken)"/> copied.</summary>
public sealed record CompactionResult
{
    /// <summary>The source's snapshot that was copied: the destination holds every tree as of this transaction.</summary>
    public required long SourceTransactionId { get; init; }

    /// <summary>Trees copied (empty trees included).</summary>
    public required int TreeCount { get; init; }

    /// <summary>Entries copied.</summary>
    public required long EntryCount { get; init; }

    /// <summary>Pages in the source's data file when the copy began.</summary>
    public required long SourcePageCount { get; init; }

    /// <summary>Pages in the destination's data file once closed.</summary>
    public required long DestinationPageCount { get; init; }

    /// <summary>The destination's directory (full path).</summary>
    public required string DestinationDirectory { get; init; }
}
