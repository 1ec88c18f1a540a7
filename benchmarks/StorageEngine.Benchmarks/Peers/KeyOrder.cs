namespace StorageEngine.Benchmarks.Peers;

/// <summary>How the keys of a write batch are chosen.</summary>
public enum KeyOrder
{
    /// <summary>Ascending keys after the largest present one (appends).</summary>
    Sequential,

    /// <summary>Keys at uniformly random places in the key space (new keys among the present ones).</summary>
    Random,
}
