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
/// The diff runs against a host mirror of the device copy, never against the device. Both directories are ascending,
/// so one merge walk pairs the entries they share: runs of shared entries stay on the device (in place when none
/// moved, else copied device-to-device into a second buffer, as an overlapping copy within one buffer is not
/// defined) and only the entries the new directory added are uploaded.
/// </remarks>
internal sealed class DeviceLeafDirectory(Accelerator accelerator) : IDisposable
{
    // A run of kept entries shorter than this between uploads is uploaded with them: 16 prefixes (128 bytes) cost
    // less than another transfer's latency. Both limits are estimates, not yet measured on a GPU (the benchmark
    // prints a refresh's uploads and time): a transfer's latency is worth kilobytes of PCIe bandwidth, so a GPU may
    // want a larger gap.
    private const int MergeGap = 16;
    // More transfers than this and one upload of the whole directory is cheaper than their latencies.
    private const int MaxTransfers = 256;

    private MemoryBuffer1D<ulong, Stride1D.Dense>? _current, _spare;
    // Entry for entry what _current holds (its first _count entries).
    private ulong[] _mirror = [];
    private int _count;
    // The refresh plan: entries [Target, Target + Length) of the new copy come from the old copy at Source, or from the host when Source < 0.
    private readonly List<(int Target, int Source, int Length)> _plan = [];

    /// <summary>The directory the device copy equals; null before the first refresh and while one is under way.</summary>
    public LeafDirectory? Directory { get; private set; }

    /// <summary>Prefixes copied from the host by the last refresh.</summary>
    public long LastUploaded { get; private set; }

    /// <summary>Prefixes copied from the host by every refresh so far.</summary>
    public long TotalUploaded { get; private set; }

    /// <summary>Prefixes kept by moving them on the device (a refresh that shifted entries) by every refresh so far.</summary>
    public long TotalMovedOnDevice { get; private set; }

    /// <summary>The prefixes on the device, for the search kernel.</summary>
    public ArrayView<ulong> View => _current is null ? throw new InvalidOperationException("The directory was never uploaded.") : _current.View.SubView(0, _count);

    /// <summary>Makes the device copy equal <paramref name="next"/>, uploading what differs, and tags it with it.</summary>
    public void Refresh(LeafDirectory next)
    {
        if (ReferenceEquals(Directory, next)) return;
        var prefixes = next.Prefixes.Span;
        int n = prefixes.Length;
        Plan(prefixes, _mirror.AsSpan(0, _count));
        bool inPlace = _current is not null && _current.Length >= Math.Max(1, n) && _plan.TrueForAll(step => step.Source < 0 || step.Source == step.Target);

        // Untagged and empty until the copy is whole: a failure part-way leaves nothing that could be searched or diffed.
        Directory = null;
        _count = 0;
        ArrayView<ulong> current = _current is null ? default : _current.View;
        ArrayView<ulong> target = inPlace ? current : Spare(n);
        long uploaded = 0;
        foreach (var (at, source, length) in _plan)
        {
            if (source < 0)
            {
                target.SubView(at, length).CopyFromCPU(prefixes.Slice(at, length));
                uploaded += length;
            }
            else if (!inPlace)
            {
                current.SubView(source, length).CopyTo(target.SubView(at, length));
                TotalMovedOnDevice += length;
            }
        }
        if (!inPlace) (_current, _spare) = (_spare, _current);

        if (_mirror.Length < n) _mirror = new ulong[Capacity(n)];
        prefixes.CopyTo(_mirror);
        _count = n;
        LastUploaded = uploaded;
        TotalUploaded += uploaded;
        Directory = next;
    }

    /// <summary>Fills <see cref="_plan"/>: the steps that turn the copy of <paramref name="old"/> into one of <paramref name="next"/>.</summary>
    private void Plan(ReadOnlySpan<ulong> next, ReadOnlySpan<ulong> old)
    {
        _plan.Clear();
        int i = 0, j = 0;
        while (j < next.Length)
        {
            if (i < old.Length && old[i] == next[j])
            {
                int start = j, source = i;
                while (j < next.Length && i < old.Length && old[i] == next[j]) (i, j) = (i + 1, j + 1);
                Add(start, source, j - start);
            }
            else if (i < old.Length && old[i] < next[j]) i++; // dropped from the directory
            else Add(j++, -1, 1); // added to it
        }
        // A short kept run between two uploads rides with them: one transfer instead of three. The steps cover the
        // new copy in order, so neighbouring uploads are contiguous and merge.
        int kept = 0;
        for (int k = 0; k < _plan.Count; k++)
        {
            var step = _plan[k];
            if (step.Source >= 0 && step.Length < MergeGap && kept > 0 && _plan[kept - 1].Source < 0 && k + 1 < _plan.Count && _plan[k + 1].Source < 0)
                step = (step.Target, -1, step.Length);
            if (step.Source < 0 && kept > 0 && _plan[kept - 1] is { Source: < 0 } upload)
                _plan[kept - 1] = (upload.Target, -1, upload.Length + step.Length);
            else _plan[kept++] = step;
        }
        _plan.RemoveRange(kept, _plan.Count - kept);
        if (_plan.Count > MaxTransfers)
        {
            _plan.Clear();
            if (next.Length > 0) _plan.Add((0, -1, next.Length));
        }
    }

    private void Add(int target, int source, int length)
    {
        if (_plan.Count > 0 && _plan[^1] is var (lastTarget, lastSource, lastLength)
            && lastTarget + lastLength == target && (lastSource < 0 ? source < 0 : source == lastSource + lastLength))
            _plan[^1] = (lastTarget, lastSource, lastLength + length);
        else _plan.Add((target, source, length));
    }

    private ArrayView<ulong> Spare(int count)
    {
        if (_spare is null || _spare.Length < Math.Max(1, count))
        {
            _spare?.Dispose();
            _spare = null;
            _spare = accelerator.Allocate1D<ulong>(Capacity(count));
        }
        return _spare.View;
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
