using System.Runtime.InteropServices;
using StorageEngine.Journal;

namespace StorageEngine.Replication;

/// <summary>A journal record as <see cref="JournalTail"/> read and verified it, with where each run's bytes lie.</summary>
internal sealed class TailRecord
{
    public TailRecord(byte[] bytes, List<TailRun> runs)
    {
        Bytes = bytes;
        Runs = runs;
    }

    /// <summary>The whole record.</summary>
    public byte[] Bytes { get; }

    /// <summary>The runs in table order.</summary>
    public List<TailRun> Runs { get; }

    public long TransactionId => MemoryMarshal.Read<JournalRecordHeader>(Bytes).TransactionId;

    public int Length => Bytes.Length;

    /// <summary>The environment state after the transaction (128 bytes).</summary>
    public ReadOnlySpan<byte> State => Bytes.AsSpan(64, JournalRecordHeader.StateSize);

    /// <summary>A run's bytes: its full images, or its diff.</summary>
    public ReadOnlySpan<byte> Data(in TailRun run) => Bytes.AsSpan(run.Offset, run.Length);
}
