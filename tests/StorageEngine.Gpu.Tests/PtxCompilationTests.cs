using System.Reflection;
using ILGPU;
using ILGPU.Backends.EntryPoints;
using ILGPU.Backends.PTX;
using ILGPU.Runtime;
using ILGPU.Runtime.Cuda;
using StorageEngine.Gpu.Kernels;

namespace StorageEngine.Gpu.Tests;

/// <summary>
/// Every kernel compiles to PTX for an sm_90 device (H100): the CPU accelerator never runs ILGPU's PTX code generator, so this
/// is where a kernel that only a GPU would reject fails. No GPU or driver is needed.
/// </summary>
public sealed class PtxCompilationTests
{
    public static TheoryData<string, bool> Kernels => new()
    {
        { nameof(LookupKernels.FindLeaves), false },
        { nameof(RadixSortKernels.Count), true },
        { nameof(RadixSortKernels.ScanRows), true },
        { nameof(RadixSortKernels.Scatter), true },
    };

    [Theory]
    [MemberData(nameof(Kernels))]
    public void Kernel_compiles_to_PTX_for_sm_90(string name, bool explicitlyGrouped)
    {
        var method = (typeof(LookupKernels).GetMethod(name, BindingFlags.Public | BindingFlags.Static)
            ?? typeof(RadixSortKernels).GetMethod(name, BindingFlags.Public | BindingFlags.Static))!;
        using var context = Context.Create(builder => builder.Cuda());
        var architecture = CudaArchitecture.SM_90;
        using var backend = new PTXBackend(context, new CudaCapabilityContext(architecture), architecture, CudaInstructionSet.ISA_78, null!);
        var entry = explicitlyGrouped ? EntryPointDescription.FromExplicitlyGroupedKernel(method) : EntryPointDescription.FromImplicitlyGroupedKernel(method);

        var compiled = (PTXCompiledKernel)backend.Compile(entry, new KernelSpecialization());

        // ILGPU 1.5.3 writes sm_80 PTX for every newer architecture; the driver compiles it for the GPU at load time.
        Assert.Contains(".target sm_80", compiled.PTXAssembly);
        Assert.Contains($".entry Kernel_{name}(", compiled.PTXAssembly);
    }
    [Fact]
    public void Scatter_reads_its_tile_into_shared_memory_for_coalesced_loads()
    {
        using var context = Context.Create(builder => builder.Cuda());
        var architecture = CudaArchitecture.SM_90;
        using var backend = new PTXBackend(context, new CudaCapabilityContext(architecture), architecture, CudaInstructionSet.ISA_78, null!);
        var method = typeof(RadixSortKernels).GetMethod(nameof(RadixSortKernels.Scatter), BindingFlags.Public | BindingFlags.Static)!;

        var ptx = ((PTXCompiledKernel)backend.Compile(EntryPointDescription.FromExplicitlyGroupedKernel(method), new KernelSpecialization())).PTXAssembly;

        // The static shared tile of keys (8 bytes each): without it the scatter reads its keys from global memory a
        // stride of KeysPerThread keys apart between neighbouring threads.
        Assert.Contains($".shared .align 8 .b8 __shared_alloca0[{RadixSortKernels.SharedTileLength * sizeof(ulong)}];", ptx);
        Assert.Contains("ld.shared.b64", ptx);
    }
}
