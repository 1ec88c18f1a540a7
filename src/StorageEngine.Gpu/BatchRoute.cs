namespace StorageEngine.Gpu;

/// <summary>Where a batch ran.</summary>
public enum BatchRoute
{
    /// <summary>No batch ran yet.</summary>
    None,

    /// <summary>The engine's CPU path: below the break-even, or no device.</summary>
    Cpu,

    /// <summary>The accelerator.</summary>
    Device,
}
