using System.Runtime.InteropServices;
using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Platform;

/// <summary>
/// The data file's mapping is advised random (MADV_RANDOM) unless <see cref="StorageEnvironmentOptions.ReadAhead"/>
/// is set: the kernel shows the advice as the "rr" flag of the mapping in /proc/self/smaps. Checked on x64 Linux;
/// the ARM64 leg runs under qemu-user, which does not pass madvise advice on to the kernel.
/// </summary>
public sealed class DataFileReadAheadTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void The_mapping_reads_ahead_only_when_asked(bool readAhead)
    {
        if (!OperatingSystem.IsLinux() || RuntimeInformation.ProcessArchitecture != Architecture.X64) return;
        using var directory = new TempDirectory("readahead");
        using var environment = StorageEnvironment.Open(new StorageEnvironmentOptions
        {
            Path = directory.Path,
            Durability = DurabilityMode.Lazy,
            ReadAhead = readAhead,
        });
        using (var write = environment.BeginWrite())
        {
            var tree = write.CreateTree("t");
            for (int i = 0; i < 2_000; i++) tree.Put(BitConverter.GetBytes(i), new byte[500]);
            write.Commit();
        }
        environment.Checkpoint();

        var flags = MappingFlags(Path.Combine(directory.Path, "data.sedb"));
        Assert.NotEmpty(flags);
        foreach (var mapping in flags)
            Assert.True(mapping.Contains("rr") != readAhead, $"ReadAhead = {readAhead}, yet the data file's mapping has flags '{mapping}'");
    }

    /// <summary>The VmFlags of every mapping of <paramref name="path"/> in this process.</summary>
    private static List<string> MappingFlags(string path)
    {
        var found = new List<string>();
        bool inMapping = false;
        foreach (var line in File.ReadLines("/proc/self/smaps"))
        {
            if (line.Length > 0 && char.IsAsciiHexDigit(line[0]) && line.Contains('-'))
                inMapping = line.EndsWith(path, StringComparison.Ordinal);
            else if (inMapping && line.StartsWith("VmFlags:", StringComparison.Ordinal))
                found.Add(line["VmFlags:".Length..].Trim());
        }
        return found;
    }
}
