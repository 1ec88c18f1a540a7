namespace StorageEngine.Gpu.Tests;

/// <summary>
/// One backend on ILGPU's CPU accelerator for every test of the collection: starting a context and compiling the
/// kernels is the slow part, so it is done once.
/// </summary>
public sealed class CpuAcceleratorFixture : IDisposable
{
    public GpuBackend Backend { get; } = GpuBackend.Create(new GpuOptions { UseCpuAccelerator = true });

    public void Dispose() => Backend.Dispose();
}

[CollectionDefinition(Name)]
public sealed class CpuAcceleratorCollection : ICollectionFixture<CpuAcceleratorFixture>
{
    public const string Name = "ILGPU CPU accelerator";
}
