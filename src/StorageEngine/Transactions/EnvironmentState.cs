using System.Runtime.InteropServices;
using StorageEngine.BTrees;

namespace StorageEngine.Transactions;

/// <summary>
/// What identifies a committed version of the environment, format version 1. It travels in every journal
/// record (the state after that transaction) and in the checkpoint header; it fits the header's 128 bytes.
/// <code>
/// offset size field
///      0    8 TransactionId  the transaction that produced this state (0: the empty environment)
///      8    8 PageCount      pages in use or free below this number; the data file is at least this long
///     16   48 RootTree       the tree of named trees
///     64   64 Reserved
/// </code>
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = Size)]
internal struct EnvironmentState
{
    public const int Size = 128;

    [FieldOffset(0)] public long TransactionId;
    [FieldOffset(8)] public long PageCount;
    [FieldOffset(16)] public TreeHeader RootTree;
}
