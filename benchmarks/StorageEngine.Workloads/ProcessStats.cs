using System.Diagnostics;
using System.Globalization;

namespace StorageEngine.Workloads;

/// <summary>What the kernel says about this process and the files: bytes written, peak memory, disk usage.</summary>
internal static class ProcessStats
{
    /// <summary>
    /// <c>write_bytes</c> of /proc/self/io: bytes this process (all threads, background ones too) caused to
    /// be sent to the storage layer, counted when a page cache page is dirtied or written direct. -1 when
    /// the file is unavailable.
    /// </summary>
    internal static long WriteBytes()
    {
        try
        {
            foreach (var line in File.ReadLines("/proc/self/io"))
                if (line.StartsWith("write_bytes:", StringComparison.Ordinal))
                    return long.Parse(line.AsSpan("write_bytes:".Length).Trim(), CultureInfo.InvariantCulture);
        }
        catch (IOException) { }
        catch (UnauthorizedAccessException) { }
        return -1;
    }

    /// <summary>Resets the kernel's peak-RSS mark (VmHWM) to the current RSS; false where not allowed.</summary>
    internal static bool ResetPeakRss()
    {
        try
        {
            File.WriteAllText("/proc/self/clear_refs", "5");
            return true;
        }
        catch (IOException) { }
        catch (UnauthorizedAccessException) { }
        return false;
    }

    /// <summary>Peak resident set (VmHWM) since the last reset, in bytes; Process.PeakWorkingSet64 elsewhere.</summary>
    internal static long PeakRss() => StatusField("VmHWM:") ?? Process.GetCurrentProcess().PeakWorkingSet64;

    /// <summary>Current resident set, in bytes.</summary>
    internal static long Rss() => StatusField("VmRSS:") ?? Process.GetCurrentProcess().WorkingSet64;

    private static long? StatusField(string name)
    {
        try
        {
            foreach (var line in File.ReadLines("/proc/self/status"))
                if (line.StartsWith(name, StringComparison.Ordinal))
                    return long.Parse(line.AsSpan(name.Length).Trim().TrimEnd("kB").Trim(), CultureInfo.InvariantCulture) * 1024;
        }
        catch (IOException) { }
        catch (UnauthorizedAccessException) { }
        return null;
    }

    /// <summary>
    /// Bytes allocated on disk under <paramref name="directory"/>, as <c>du -s -B1</c> counts them (st_blocks
    /// x 512, so sparse files count what they use); the sum of file lengths where du is unavailable.
    /// </summary>
    internal static long DiskUsage(string directory)
    {
        if (!Directory.Exists(directory)) return 0;
        try
        {
            var info = new ProcessStartInfo("du", ["-s", "-B1", directory])
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            using var du = Process.Start(info)!;
            string output = du.StandardOutput.ReadToEnd();
            du.WaitForExit();
            if (du.ExitCode == 0)
                return long.Parse(output.AsSpan(0, output.IndexOf('\t', StringComparison.Ordinal)), CultureInfo.InvariantCulture);
        }
        catch (System.ComponentModel.Win32Exception) { }
        return new DirectoryInfo(directory).EnumerateFiles("*", SearchOption.AllDirectories).Sum(f => f.Length);
    }

    /// <summary>Runs a command for the report; its output, or the reason it failed.</summary>
    internal static string Command(string file, params string[] args)
    {
        try
        {
            var info = new ProcessStartInfo(file, args) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
            using var p = Process.Start(info)!;
            string output = p.StandardOutput.ReadToEnd();
            p.WaitForExit();
            return output.TrimEnd();
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            return $"({file}: {e.Message})";
        }
    }
}
