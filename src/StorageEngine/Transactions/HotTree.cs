using StorageEngine.BTrees;
using StorageEngine.Common;

namespace StorageEngine.Transactions;

/// <summary>
/// The hot tree: the one named tree whose header the environment state holds (<see cref="EnvironmentState.HotTree"/>)
/// while its entry in the tree of names is marked <see cref="TreeFlags.HeaderInState"/>.
/// </summary>
internal static class HotTree
{
    /// <summary>
    /// The header that <paramref name="state"/> holds for the tree whose entry in the tree of names is
    /// <paramref name="entry"/> (marked <see cref="TreeFlags.HeaderInState"/>) under <paramref name="name"/>; null
    /// when it holds none, or one of a tree with another name or other flags: the state and the tree of names disagree.
    /// </summary>
    public static TreeHeader? Resolve(in EnvironmentState state, in TreeHeader entry, ReadOnlySpan<byte> name)
    {
        var hot = state.HotTree;
        if (hot.RootPage == 0 || hot.Flags != (entry.Flags & ~TreeFlags.HeaderInState) || state.HotTreeName != NameChecksum(name)) return null;
        return hot;
    }

    /// <summary>What <see cref="EnvironmentState.HotTreeName"/> holds for a tree of this (UTF-8) name.</summary>
    public static uint NameChecksum(ReadOnlySpan<byte> name) => Crc32C.Compute(name);
}
