using System.Diagnostics;
using System.Runtime.InteropServices;

namespace StorageEngine.Workloads;

/// <summary>
/// The machine's own limits, measured in the same run on the disk that holds the engines' files: no durable
/// commit can beat one synced write, no bulk load can beat its bytes over the write bandwidth.
/// </summary>
internal sealed record MachineFloor(
    double SyncedWrite4KMedianMicros, double SyncedWrite4KP99Micros,
    double DirectWriteMBps, double MemoryCopyGBps, string? Problem)
{
    private const int SmallWrites = 200;
    private const int BlockSize = 4096;
    private const int BandwidthChunk = 1 << 20;
    private const int BandwidthBytes = 64 << 20;
    private const long CopyBytes = 256L << 20;

    internal static MachineFloor Measure(string directory)
    {
        double median = double.NaN, p99 = double.NaN, bandwidth = double.NaN;
        string? problem = null;
        try
        {
            (median, p99) = SyncedWriteLatency(directory);
            bandwidth = DirectWriteBandwidth(directory);
        }
        catch (IOException e)
        {
            problem = e.Message;
        }
        return new MachineFloor(median, p99, bandwidth, MemoryCopy(), problem);
    }

    /// <summary>
    /// Median of 200 overwrites of one 4 KiB block of a preallocated file opened O_DIRECT|O_DSYNC (what a
    /// recycled journal does; appending would add a metadata commit per write).
    /// </summary>
    private static unsafe (double Median, double P99) SyncedWriteLatency(string directory)
    {
        string path = Path.Combine(directory, "floor-sync.tmp");
        void* buffer = NativeMemory.AlignedAlloc(BlockSize, BlockSize);
        int fd = -1;
        try
        {
            new Span<byte>(buffer, BlockSize).Fill(0x5A);
            fd = Libc.open(path, Libc.O_WRONLY | Libc.O_CREAT | Libc.O_TRUNC | Libc.O_DIRECT | Libc.O_DSYNC, 0b110_100_100);
            Libc.Check(fd, "open(O_DIRECT|O_DSYNC)");
            for (int i = 0; i < SmallWrites; i++) Libc.Check(Libc.pwrite(fd, buffer, BlockSize, (long)i * BlockSize), "pwrite");
            var ticks = new long[SmallWrites];
            for (int i = 0; i < SmallWrites; i++)
            {
                long start = Stopwatch.GetTimestamp();
                Libc.Check(Libc.pwrite(fd, buffer, BlockSize, (long)i * BlockSize), "pwrite");
                ticks[i] = Stopwatch.GetTimestamp() - start;
            }
            Array.Sort(ticks);
            return (LatencyStats.TicksToMicros(ticks[SmallWrites / 2]), LatencyStats.TicksToMicros(ticks[SmallWrites * 99 / 100]));
        }
        finally
        {
            if (fd >= 0) Libc.close(fd);
            NativeMemory.AlignedFree(buffer);
            File.Delete(path);
        }
    }

    /// <summary>64 MiB in 1 MiB O_DIRECT writes and one fsync, in MB/s (10^6 bytes).</summary>
    private static unsafe double DirectWriteBandwidth(string directory)
    {
        string path = Path.Combine(directory, "floor-bandwidth.tmp");
        void* buffer = NativeMemory.AlignedAlloc(BandwidthChunk, BlockSize);
        int fd = -1;
        try
        {
            new Span<byte>(buffer, BandwidthChunk).Fill(0xA5);
            fd = Libc.open(path, Libc.O_WRONLY | Libc.O_CREAT | Libc.O_TRUNC | Libc.O_DIRECT, 0b110_100_100);
            Libc.Check(fd, "open(O_DIRECT)");
            long start = Stopwatch.GetTimestamp();
            for (long offset = 0; offset < BandwidthBytes; offset += BandwidthChunk)
                Libc.Check(Libc.pwrite(fd, buffer, BandwidthChunk, offset), "pwrite");
            Libc.Check(Libc.fsync(fd), "fsync");
            double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
            return BandwidthBytes / seconds / 1e6;
        }
        finally
        {
            if (fd >= 0) Libc.close(fd);
            NativeMemory.AlignedFree(buffer);
            File.Delete(path);
        }
    }

    /// <summary>Buffer.MemoryCopy of 256 MiB, best of three after a warm-up, in GB/s (10^9 bytes copied).</summary>
    private static unsafe double MemoryCopy()
    {
        byte* source = (byte*)NativeMemory.Alloc((nuint)CopyBytes);
        byte* target = (byte*)NativeMemory.Alloc((nuint)CopyBytes);
        try
        {
            new Span<byte>(source, 1 << 20).Fill(1);
            NativeMemory.Fill(source, (nuint)CopyBytes, 7);
            NativeMemory.Fill(target, (nuint)CopyBytes, 0);
            double best = double.MaxValue;
            for (int round = 0; round < 4; round++)
            {
                long start = Stopwatch.GetTimestamp();
                Buffer.MemoryCopy(source, target, CopyBytes, CopyBytes);
                double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
                if (round > 0) best = Math.Min(best, seconds);
            }
            return CopyBytes / best / 1e9;
        }
        finally
        {
            NativeMemory.Free(source);
            NativeMemory.Free(target);
        }
    }
}
