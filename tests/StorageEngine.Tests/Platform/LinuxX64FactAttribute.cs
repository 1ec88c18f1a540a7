using System.Runtime.InteropServices;

namespace StorageEngine.Tests.Platform;

/// <summary>
/// A fact that runs only on x64 Linux and is reported skipped, with the reason, everywhere else: it reads the
/// kernel's own view of a mapping (/proc/self/smaps, mincore), which the ARM64 leg's qemu-user emulation and the
/// Windows leg's Wine do not reproduce faithfully.
/// </summary>
public sealed class LinuxX64FactAttribute : FactAttribute
{
    public LinuxX64FactAttribute()
    {
        if (!OperatingSystem.IsLinux() || RuntimeInformation.ProcessArchitecture != Architecture.X64)
        {
            Skip = "x64 Linux only: it reads the kernel's view of memory (smaps, mincore), which qemu-user and Wine do not reproduce.";
        }
    }
}
