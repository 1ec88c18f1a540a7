using System.Runtime.InteropServices;
using StorageEngine.BTrees;

namespace StorageEngine.Transactions;

/// <summary>
/// What identifies a committed version of the environment, format version 2. It travels in every journal
/// record (the state after that transaction) and in the checkpoint header; it fits the header's 128 bytes.
/// <code>
/// offset size field
///      0    8 TransactionId  the transaction that produced this state (0: the empty environment)
///      8    8 PageCount      pages in use or free below this number; the data file is at least this long
///     16   48 RootTree       the tree of named trees
///     64   48 HotTree        the current header of the one named tree whose entry in the tree of names is
///                            marked <see cref="TreeFlags.HeaderInState"/>; RootPage 0 when none is (format 1:
///                            always zeros)
///    112    4 HotTreeName    CRC-32C of the hot tree's name (UTF-8): a state that names another tree is told
///                            apart from the one the marked entry means
///    116   12 Reserved
/// </code>
/// A commit that changes only the hot tree writes its header here instead of copying a page of the tree of
/// names: that copy, its seal and its journal bytes were a tenth of a one-put commit. Which tree is hot: see
/// <c>WriteTransaction.FlushTreeHeaders</c>.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = Size)]
internal struct EnvironmentState
{
    public const int Size = 128;

    [FieldOffset(0)] public long TransactionId;
    [FieldOffset(8)] public long PageCount;
    [FieldOffset(16)] public TreeHeader RootTree;
    [FieldOffset(64)] public TreeHeader HotTree;
    [FieldOffset(112)] public uint HotTreeName;
}
