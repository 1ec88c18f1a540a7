using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.Arm;
using System.Runtime.Intrinsics.X86;

// One line of what the JIT enables here, then the engine's paths that follow from it. The engine decides
// the same way (DifferingWords: the widest accelerated vector; Crc32C: wide, sparse, SSE4.2, ARM64, software).
var flags = new (string Name, bool On)[]
{
    ("Vector512", Vector512.IsHardwareAccelerated),
    ("Vector256", Vector256.IsHardwareAccelerated),
    ("Vector128", Vector128.IsHardwareAccelerated),
    ("Avx512F", Avx512F.IsSupported),
    ("Avx2", Avx2.IsSupported),
    ("Sse42.X64", Sse42.X64.IsSupported),
    ("Pclmulqdq", Pclmulqdq.IsSupported),
    ("Pclmulqdq.V512", Pclmulqdq.V512.IsSupported),
    ("AdvSimd", AdvSimd.IsSupported),
    ("Crc32.Arm64", Crc32.Arm64.IsSupported),
};
Console.WriteLine($"cpu: {RuntimeInformation.ProcessArchitecture}, {RuntimeInformation.FrameworkDescription}; "
    + string.Join(' ', flags.Select(f => $"{f.Name}={(f.On ? "yes" : "no")}")));

string diff = Vector512.IsHardwareAccelerated ? "Vector512" : Vector256.IsHardwareAccelerated ? "Vector256" : "scalar";
string crc = Pclmulqdq.V512.IsSupported && Sse42.X64.IsSupported ? "wide (Pclmulqdq.V512)"
    : Pclmulqdq.IsSupported && Sse42.X64.IsSupported ? "sparse (Pclmulqdq + SSE4.2)"
    : Sse42.X64.IsSupported ? "SSE4.2"
    : Crc32.Arm64.IsSupported ? "ARM64 (Crc32.Arm64)"
    : "software";
Console.WriteLine($"engine paths: DifferingWords {diff}; CRC-32C {crc}");

// --require NAME=yes|no (repeatable): exit 1 when a flag differs, so a CI leg can insist on the path it exists for.
int failures = 0;
for (int i = 0; i + 1 < args.Length; i++)
{
    if (args[i] != "--require") continue;
    string[] parts = args[++i].Split('=', 2);
    var flag = flags.FirstOrDefault(f => f.Name == parts[0]);
    if (flag.Name is null || parts.Length != 2 || (parts[1] != "yes" && parts[1] != "no"))
    {
        Console.Error.WriteLine($"error: --require takes NAME=yes|no with NAME one of {string.Join(", ", flags.Select(f => f.Name))}; got '{args[i]}'.");
        return 2;
    }
    if (flag.On != (parts[1] == "yes"))
    {
        Console.Error.WriteLine($"error: {flag.Name} is {(flag.On ? "enabled" : "disabled")} here, and this run requires it {(parts[1] == "yes" ? "enabled" : "disabled")}.");
        failures++;
    }
}
return failures == 0 ? 0 : 1;
