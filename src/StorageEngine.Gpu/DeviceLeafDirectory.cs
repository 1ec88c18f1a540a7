using ILGPU;
using ILGPU.Runtime;

namespace StorageEngine.Gpu;

/// <summary>
/// The device copy of one <see cref="LeafDirectory"/>'s prefixes, tagged with the directory it equals. A refresh to a
/// newer directory uploads only the entries that differ from what the device holds: a commit changes the bounds of
/// few leaves (a put that splits no leaf changes none), so re-sending every prefix after each commit would make the
/// transfer grow with the tree instead of with the commit.
/// </summary>
/// <remarks>
/// The diff runs against a host mirror of the device copy, never against the device. Same leaf count: each run of
/// changed entries is patched in place. Another leaf count (splits, merges): the unchanged head and tail move into a
/// second buffer by device-to-device copies (the tail shifts, and an overlapping copy within one buffer is not
/// defined) and only the middle between them is uploaded.
/// </remarks>
internal sealed class DeviceLeafDirectory(Accelerator accelerator) : IDisposable
{
    // Changed runs closer than this are sent as one upload: 64 prefixes (512 bytes) cost less than another transfer's latency.
    private const int MergeGap = 64;

    private MemoryBuffer1D<ulong, Stride1D.Dense>? _current, _spare;
    // Entry for entry what _current holds (its first _count entries).
    private ulong[] _mirror = [];
    private int _count;

    /// <summary>The directory the device copy equals; null before the first refresh and while one is under way.</summary>
    public LeafDirectory? Directory { get; private set; }

    /// <summary>Prefixes copied from the host by the last refresh.</summary>
    public long LastUploaded { get; private set; }

    /// <summary>Prefixes copied from the host by every refresh so far.</summary>
    public long TotalUploaded { get; private set; }

    /// <summary>Prefixes moved on the device (head and tail kept by a refresh that changed the leaf count) by every refresh so far.</summary>
    public long TotalMovedOnDevice { get; private set; }

    /// <summary>The prefixes on the device, for the search kernel (one entry, never searched past, when there are none).</summary>
    public ArrayView<ulong> View => _current is null ? throw new InvalidOperationException("The directory was never uploaded.") : _current.View.SubView(0, _count);

    /// <summary>Makes the device copy equal <paramref name="next"/>, uploading what differs, and tags it with it.</summary>
    public void Refresh(LeafDirectory next)
    {
        if (ReferenceEquals(Directory, next)) return;
        var prefixes = next.Prefixes.Span;
        int n = prefixes.Length, m = _count;
        var old = _mirror.AsSpan(0, m);
        int head = prefixes.CommonPrefixLength(old);
        int tail = 0;
        int shorter = Math.Min(n, m) - head;
        while (tail < shorter && prefixes[n - 1 - tail] == old[m - 1 - tail]) tail++;

        // Untagged and empty until the copy is whole: a failure part-way leaves nothing that could be searched or diffed.
        Directory = null;
        _count = 0;
        long uploaded;
        if (_current is not null && n == m) uploaded = Patch(_current, prefixes, old, head, n - tail);
        else uploaded = Rebuild(prefixes, m, head, tail);

        if (_mirror.Length < n) _mirror = new ulong[Capacity(n)];
        prefixes.CopyTo(_mirror);
        _count = n;
        LastUploaded = uploaded;
        TotalUploaded += uploaded;
        Directory = next;
    }

    /// <summary>Uploads the runs of <paramref name="next"/> that differ from <paramref name="old"/> within [start, end), in place.</summary>
    private static long Patch(MemoryBuffer1D<ulong, Stride1D.Dense> buffer, ReadOnlySpan<ulong> next, ReadOnlySpan<ulong> old, int start, int end)
    {
        long uploaded = 0;
        int i = start;
        while (i < end)
        {
            if (next[i] == old[i])
            {
                i++;
                continue;
            }
            int runEnd = i + 1, lastChange = i;
            while (runEnd < end && runEnd - lastChange <= MergeGap)
            {
                if (next[runEnd] != old[runEnd]) lastChange = runEnd;
                runEnd++;
            }
            int length = lastChange + 1 - i;
            ((ArrayView<ulong>)buffer.View).SubView(i, length).CopyFromCPU(next.Slice(i, length));
            uploaded += length;
            i = lastChange + 1;
        }
        return uploaded;
    }

    /// <summary>
    /// Builds the copy of a directory of another leaf count in the spare buffer: the <paramref name="head"/> and
    /// <paramref name="tail"/> entries it shares with the current copy (of <paramref name="oldCount"/> entries) moved
    /// on the device, the rest uploaded; then the buffers swap.
    /// </summary>
    private long Rebuild(ReadOnlySpan<ulong> next, int oldCount, int head, int tail)
    {
        int n = next.Length;
        if (_current is null)
        {
            head = tail = 0;
            oldCount = 0;
        }
        if (_spare is null || _spare.Length < Math.Max(1, n))
        {
            _spare?.Dispose();
            _spare = null;
            _spare = accelerator.Allocate1D<ulong>(Capacity(n));
        }
        ArrayView<ulong> target = _spare.View, current = _current is null ? default : _current.View;
        if (head > 0) current.SubView(0, head).CopyTo(target.SubView(0, head));
        if (tail > 0) current.SubView(oldCount - tail, tail).CopyTo(target.SubView(n - tail, tail));
        int middle = n - head - tail;
        if (middle > 0) target.SubView(head, middle).CopyFromCPU(next.Slice(head, middle));
        (_current, _spare) = (_spare, _current);
        TotalMovedOnDevice += head + tail;
        return middle;
    }

    // A quarter over the need: a tree that grows by a few leaves per commit does not reallocate at each one.
    private static int Capacity(int count) => Math.Max(1, count + count / 4);

    /// <summary>The prefixes on the device, read back (for tests that compare the copy with a full build).</summary>
    public ulong[] ReadBack()
    {
        var copy = new ulong[_count];
        if (_count > 0) ((ArrayView<ulong>)_current!.View).SubView(0, _count).CopyToCPU(copy.AsSpan());
        return copy;
    }

    public void Dispose()
    {
        Directory = null;
        _count = 0;
        _current?.Dispose();
        _spare?.Dispose();
        _current = _spare = null;
    }
}
