using System.Runtime.InteropServices;

namespace StorageEngine.BTrees;

/// <summary>
/// What the root tree stores for each named tree (and the environment state for the root tree itself),
/// format version 1.
/// <code>
/// offset size field
///      0    8 RootPage       page number of the root (a leaf while the tree is small)
///      8    8 EntryCount
///     16    8 BranchPages
///     24    8 LeafPages
///     32    8 OverflowPages
///     40    4 Depth          1 when the root is a leaf
///     44    4 Flags          <see cref="TreeFlags"/>
/// </code>
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = Size)]
internal struct TreeHeader
{
    public const int Size = 48;

    [FieldOffset(0)] public long RootPage;
    [FieldOffset(8)] public long EntryCount;
    [FieldOffset(16)] public long BranchPages;
    [FieldOffset(24)] public long LeafPages;
    [FieldOffset(32)] public long OverflowPages;
    [FieldOffset(40)] public int Depth;
    [FieldOffset(44)] public TreeFlags Flags;
}
