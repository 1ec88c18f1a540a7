using Microsoft.Extensions.Logging;
using StorageEngine.Platform;

namespace StorageEngine;

/// <summary>How to open an environment.</summary>
public sealed class StorageEnvironmentOptions
{
    /// <summary>
    /// The directory that holds the environment's files (created if missing). Ignored for
    /// <see cref="DurabilityMode.InMemory"/>. Resolved to a full path once, as .NET resolves paths: by the text, so
    /// <c>x/../db</c> is <c>db</c> whether or not <c>x</c> exists (<see cref="StorageEnvironment.Directory"/> is
    /// the result).
    /// </summary>
    public string? Path { get; set; }

    /// <summary>What a returned commit promises. Default <see cref="DurabilityMode.Safe"/>.</summary>
    public DurabilityMode Durability { get; set; } = DurabilityMode.Safe;

    /// <summary>
    /// Page size of a new environment: a power of two from 4096 to 32768. An existing environment keeps the
    /// page size it was created with. Default 4096.
    /// </summary>
    public int PageSize { get; set; } = 4096;

    /// <summary>
    /// Largest size of a journal file, at least 1 MiB. A new Safe environment starts with a 64 KiB file and each
    /// next file is twice the last up to this size, so an environment that commits little keeps a small journal
    /// (Lazy files are this size but sparse); a clean close leaves one file of a thirty-second of the data file,
    /// 64 KiB at least. A single commit larger than this gets a file of its own size. Default 16 MiB: every file must be
    /// written once (zeros) before a Safe journal can use it, and an open environment keeps up to five.
    /// </summary>
    public long JournalFileSize { get; set; } = 16L << 20;

    /// <summary>
    /// Journal bytes written since the last checkpoint that trigger a background checkpoint: what a Lazy
    /// environment can lose to power loss at most, and what recovery replays. Pages waiting in memory for the
    /// checkpoint, and freed pages, trigger one at <see cref="CheckpointMemoryThreshold"/>. Default 32 MiB.
    /// </summary>
    public long CheckpointThreshold { get; set; } = DefaultCheckpointThreshold;

    /// <summary>The default <see cref="CheckpointThreshold"/>: 32 MiB.</summary>
    internal const long DefaultCheckpointThreshold = 32L << 20;

    /// <summary>
    /// Bytes of committed pages waiting in memory for the next checkpoint, or of pages freed since the last one,
    /// that trigger a background checkpoint. The waiting pages are capped at twice this (64 MiB at least): beyond
    /// it commits write their own. Freed pages waiting for a checkpoint are held to four times this (1 MiB at least):
    /// beyond it, a writer that would grow the data file runs a checkpoint first.
    /// </summary>
    /// <remarks>
    /// Larger means fewer checkpoints under random writes, each of which writes every page changed since the last
    /// whole: more versions of a page are replaced in memory before one is written. It costs memory while writes run
    /// (up to twice this in waiting pages, and up to four times it, 512 MiB at most, in page buffers kept for reuse;
    /// both given back once writes pause) and file size (freed pages wait longer to be reused). Null, the default: <see cref="CheckpointThreshold"/> where it was changed from its default; else a
    /// 128th of the memory the process may use (<see cref="GCMemoryInfo.TotalAvailableMemoryBytes"/>, which honours
    /// container limits), from 32 to 128 MiB, and in a process with less than 768 MiB a 24th of its memory (4 MiB at
    /// least), which leaves most of a small container's limit to the page cache. Freed pages also ask for a checkpoint
    /// once they come to a quarter of the data file. See docs/tuning.md for what it changes, measured.
    /// </remarks>
    public long? CheckpointMemoryThreshold { get; set; }

    /// <summary>
    /// Longest time between checkpoints while there are commits to checkpoint; once commits pause for a tenth of
    /// it (at least 100 ms) a checkpoint runs too. From 1 millisecond to about 24.8 days (<see cref="int.MaxValue"/>
    /// milliseconds). Default 10 seconds.
    /// </summary>
    public TimeSpan CheckpointInterval { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>How long <see cref="StorageEnvironment.BeginWrite(TimeSpan?)"/> waits for the running writer by default: zero (try once) to about 24.8 days, or <see cref="Timeout.InfiniteTimeSpan"/>. Default 30 seconds.</summary>
    public TimeSpan WriteTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>Most read transactions open at once: from 1 to 1,048,576. Default 1024.</summary>
    public int MaxReaders { get; set; } = 1024;

    /// <summary>The largest <see cref="MaxReaders"/> an open accepts.</summary>
    internal const int MaxReadersLimit = 1 << 20;

    /// <summary>The shortest <see cref="CheckpointInterval"/> an open accepts.</summary>
    internal static readonly TimeSpan MinCheckpointInterval = TimeSpan.FromMilliseconds(1);

    /// <summary>The longest wait a timeout or interval may ask for: what a wait on a handle accepts (about 24.8 days).</summary>
    internal static readonly TimeSpan MaxTimeout = TimeSpan.FromMilliseconds(int.MaxValue);

    /// <summary>
    /// Open an existing environment for reading only. Nothing is ever written: no checkpoint, no journal file, no
    /// header (the empty <c>LOCK</c> file is created only where it is missing). On the operating system's file
    /// system the environment takes a shared lock, so several read-only opens may run at once, but none beside a
    /// read-write open. <see cref="StorageEnvironment.BeginWrite(TimeSpan?)"/>, <see cref="StorageEnvironment.BeginWriteAsync"/>,
    /// <see cref="StorageEnvironment.Checkpoint"/> and <see cref="StorageEnvironment.BulkLoad"/> throw
    /// <see cref="InvalidOperationException"/>. An environment whose journal holds commits past its last checkpoint
    /// (it was not closed cleanly) needs recovery, which writes: opening it read-only throws
    /// <see cref="StorageException"/> until it has been opened read-write once. Default false.
    /// </summary>
    public bool ReadOnly { get; set; }

    /// <summary>
    /// Open an environment although journal files that its data file needs are missing, accepting that the commits
    /// they held are lost. An environment that did not close cleanly keeps its commits after the last checkpoint in
    /// its journal (<c>journal.*</c> files) only; when the journal file the data file's header names is missing, or
    /// (after a Safe session) empty or without a record of the session that wrote records there (overwritten with
    /// zeros), <see cref="StorageEnvironment.Open(StorageEnvironmentOptions)"/> throws
    /// <see cref="CorruptionException"/> naming the file and the last checkpointed transaction. With this set, it
    /// opens the environment as of that checkpoint instead (and rebuilds the free-space map from the trees). An empty
    /// or missing data file beside journal files (<c>journal.*</c> or spare <c>journal-free.*</c>) is refused the same
    /// way; with this set, the journal files are deleted and a new, empty environment is created. Set it only to
    /// salvage what the data file holds once the journal cannot be restored. Default false.
    /// </summary>
    public bool AcceptJournalLoss { get; set; }

    /// <summary>
    /// Whether the OS may read ahead of page faults in the data file's mapping. Off by default: a B+tree's reads
    /// jump around the file, and once the data outgrows memory the neighbours read ahead push out pages that are
    /// wanted (point reads at four times a 256 MiB memory limit ran at 76 per second with readahead and 18,700
    /// without; BENCHMARKS.md, W7). Turn it on for a store read mostly front to back from a cold cache, such as one
    /// just bulk-loaded or compacted. Linux and macOS; Windows has no such advice and always reads ahead.
    /// </summary>
    public bool ReadAhead { get; set; }

    /// <summary>Where the engine reports opening, recovery, checkpoints and warnings. Nothing is logged per operation.</summary>
    public ILoggerFactory? LoggerFactory { get; set; }

    /// <summary>The file layer; tests substitute one that simulates crashes or injects faults.</summary>
    internal IFileSystem? FileSystem { get; set; }

    /// <summary>
    /// Bytes of committed pages held for the next checkpoint beyond which a commit writes its own pages into the
    /// data file; null for the default (twice <see cref="CheckpointMemoryThreshold"/>, at least 64 MiB). Tests lower it
    /// to reach that path with small stores.
    /// </summary>
    internal long? UnwrittenPagesLimit { get; set; }

    /// <summary>
    /// Bytes of large values on new pages from which a Safe commit writes them straight into the data file
    /// (synced before its journal record, which then names them only) instead of through the journal; null for
    /// the default (256 KiB). Tests lower it to reach that path with small values.
    /// </summary>
    internal long? ValuesInPlaceFrom { get; set; }

    internal StorageEnvironmentOptions Clone() => (StorageEnvironmentOptions)MemberwiseClone();
}
