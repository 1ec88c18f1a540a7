using StorageEngine.Journal;
using StorageEngine.Transactions;

namespace StorageEngine.Replication;

/// <summary>
/// One transaction read from a shipping stream and verified; its pages live in the reader's buffers until the
/// next read. Pages the stream carried as diffs are whole only once <see cref="ShippingStreamReader.RebuildDiffs"/> ran.
/// </summary>
internal sealed class ReplicatedRecord
{
    public ReplicatedRecord(EnvironmentState state, List<JournalPageRun> runs, List<ShippedDiff> diffs, uint? previousStateChecksum, long streamOffset)
    {
        State = state;
        Runs = runs;
        Diffs = diffs;
        PreviousStateChecksum = previousStateChecksum;
        StreamOffset = streamOffset;
    }

    public long TransactionId => State.TransactionId;

    /// <summary>The environment state after the transaction.</summary>
    public EnvironmentState State { get; }

    /// <summary>Every page the transaction wrote as full images, in page order, in 4 KB-aligned memory (fit for the journal).</summary>
    public List<JournalPageRun> Runs { get; }

    /// <summary>The runs the stream carried as diffs, still to be rebuilt into their place in <see cref="Runs"/>.</summary>
    public List<ShippedDiff> Diffs { get; }

    /// <summary>CRC-32C of the primary's state before the transaction, when the primary knew it.</summary>
    public uint? PreviousStateChecksum { get; }

    /// <summary>Where the record starts in the stream.</summary>
    public long StreamOffset { get; }
}
