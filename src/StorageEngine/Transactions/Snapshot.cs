using StorageEngine.Platform;

namespace StorageEngine.Transactions;

/// <summary>
/// One committed version of the environment, immutable once published. Readers take the current one with a
/// single volatile read.
/// </summary>
internal sealed unsafe class Snapshot
{
    public Snapshot(EnvironmentState state, IMappedView view, long journalFileNumber)
    {
        State = state;
        View = view;
        Base = view.Pointer;
        JournalFileNumber = journalFileNumber;
    }

    public EnvironmentState State { get; }

    public long TransactionId => State.TransactionId;

    /// <summary>The mapping this snapshot reads its pages through.</summary>
    public IMappedView View { get; }

    public byte* Base { get; }

    /// <summary>The journal file that holds this transaction's record (recovery starts there once it is checkpointed).</summary>
    public long JournalFileNumber { get; }
}
