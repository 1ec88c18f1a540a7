using ILGPU;

namespace StorageEngine.Gpu.Kernels;

/// <summary>
/// Device code of the 8-bit-digit LSD radix sort (see <see cref="DeviceRadixSort"/>). A pass over one digit is a
/// count of every tile's digits, an exclusive scan of those counts in (digit, tile) order (each digit's row scanned
/// by one group, the rows' totals added up by the scatter), and a scatter in which each tile writes its keys at
/// its scanned offsets, thread by thread and key by key in input order: stable.
/// A tile is one group of threads (any size up to <see cref="MaxGroupSize"/>) of <see cref="KeysPerThread"/>
/// consecutive keys each. Global memory is read coalesced (neighbouring threads, neighbouring keys): the count reads
/// its tile with a stride of the group size, and the scatter first copies its tile into shared memory that way.
/// </summary>
internal static class RadixSortKernels
{
    public const int MaxGroupSize = 32;
    public const int KeysPerThread = 32;
    public const int Radix = 256;
    // A thread's keys in the scatter's shared tile are KeysPerThread + 1 apart: with KeysPerThread apart every thread
    // of a warp would read the same bank at once.
    public const int TileStride = KeysPerThread + 1;
    public const int SharedTileLength = MaxGroupSize * TileStride;

    /// <summary>Keys per tile for groups of <paramref name="groupSize"/> threads.</summary>
    public static int TileSize(int groupSize) => groupSize * KeysPerThread;

    /// <summary>One group per tile: its count of each digit value into <paramref name="tileCounts"/>[digit * tiles + tile].</summary>
    public static void Count(ArrayView<ulong> keys, ArrayView<int> tileCounts, int shift, int tiles, int length)
    {
        var histogram = SharedMemory.Allocate<int>(Radix);
        int thread = Group.IdxX;
        int groupSize = Group.DimX;
        int tileSize = groupSize * KeysPerThread;
        for (int b = thread; b < Radix; b += groupSize) histogram[b] = 0;
        Group.Barrier();
        int tile = Grid.IdxX;
        int start = tile * tileSize;
        for (int k = thread; k < tileSize; k += groupSize)
        {
            int i = start + k;
            if (i < length) Atomic.Add(ref histogram[(int)((keys[i] >> shift) & 0xFF)], 1);
        }
        Group.Barrier();
        for (int b = thread; b < Radix; b += groupSize) tileCounts[b * tiles + tile] = histogram[b];
    }

    /// <summary>
    /// One group per digit value: the exclusive prefix sums of that digit's row of <paramref name="tileCounts"/> into
    /// <paramref name="tileOffsets"/>, and the row's total into <paramref name="rowTotals"/>.
    /// </summary>
    public static void ScanRows(ArrayView<int> tileCounts, ArrayView<int> tileOffsets, ArrayView<int> rowTotals, int tiles)
    {
        var partial = SharedMemory.Allocate<int>(MaxGroupSize);
        int thread = Group.IdxX;
        int groupSize = Group.DimX;
        int row = Grid.IdxX;
        int chunk = (tiles + groupSize - 1) / groupSize;
        int begin = thread * chunk < tiles ? thread * chunk : tiles;
        int end = begin + chunk < tiles ? begin + chunk : tiles;
        int rowStart = row * tiles;
        int sum = 0;
        for (int i = begin; i < end; i++) sum += tileCounts[rowStart + i];
        partial[thread] = sum;
        Group.Barrier();
        if (thread == 0)
        {
            int running = 0;
            for (int t = 0; t < groupSize; t++)
            {
                int c = partial[t];
                partial[t] = running;
                running += c;
            }
            rowTotals[row] = running;
        }
        Group.Barrier();
        int offset = partial[thread];
        for (int i = begin; i < end; i++)
        {
            int c = tileCounts[rowStart + i];
            tileOffsets[rowStart + i] = offset;
            offset += c;
        }
    }

    /// <summary>
    /// One group per tile: moves its keys (and items when <paramref name="withItems"/> is not 0) to
    /// the keys of smaller digits (from <paramref name="rowTotals"/>) plus <paramref name="tileOffsets"/>[digit * tiles + tile]
    /// plus the number of keys with that digit before them in the tile.
    /// </summary>
    public static void Scatter(ArrayView<ulong> sourceKeys, ArrayView<int> sourceItems, ArrayView<ulong> targetKeys, ArrayView<int> targetItems,
        ArrayView<int> tileOffsets, ArrayView<int> rowTotals, int shift, int tiles, int length, int withItems)
    {
        // counts[digit * groupSize + thread]: first the keys of each digit per thread, then their offset within the
        // tile; after them, rowBase[digit]: the keys of all smaller digits. Dynamic shared memory of
        // Radix * (groupSize + 1) ints (see DeviceRadixSort).
        var counts = SharedMemory.GetDynamic<int>();
        int thread = Group.IdxX;
        int groupSize = Group.DimX;
        int rowBase = Radix * groupSize;
        if (thread == 0)
        {
            int running = 0;
            for (int d = 0; d < Radix; d++)
            {
                counts[rowBase + d] = running;
                running += rowTotals[d];
            }
        }
        for (int d = 0; d < Radix; d++) counts[d * groupSize + thread] = 0;
        // The tile into shared memory, neighbouring threads reading neighbouring keys (coalesced): each thread then
        // works through its KeysPerThread consecutive keys there, which read from global memory would be a stride
        // of KeysPerThread keys between the threads of a warp.
        var tileKeys = SharedMemory.Allocate<ulong>(SharedTileLength);
        var tileItems = SharedMemory.Allocate<int>(SharedTileLength);
        int tile = Grid.IdxX;
        int tileStart = tile * groupSize * KeysPerThread;
        for (int j = thread; j < groupSize * KeysPerThread; j += groupSize)
        {
            int i = tileStart + j;
            if (i >= length) break;
            int slot = j / KeysPerThread * TileStride + j % KeysPerThread;
            tileKeys[slot] = sourceKeys[i];
            if (withItems != 0) tileItems[slot] = sourceItems[i];
        }
        Group.Barrier();
        int start = tileStart + thread * KeysPerThread;
        int mine = thread * TileStride;
        for (int k = 0; k < KeysPerThread; k++)
        {
            if (start + k < length) counts[(int)((tileKeys[mine + k] >> shift) & 0xFF) * groupSize + thread]++;
        }
        Group.Barrier();
        // Each thread turns whole digit rows into exclusive prefix sums over the threads.
        for (int d = thread; d < Radix; d += groupSize)
        {
            int sum = 0;
            for (int t = 0; t < groupSize; t++)
            {
                int c = counts[d * groupSize + t];
                counts[d * groupSize + t] = sum;
                sum += c;
            }
        }
        Group.Barrier();
        for (int k = 0; k < KeysPerThread; k++)
        {
            if (start + k >= length) break;
            ulong key = tileKeys[mine + k];
            int digit = (int)((key >> shift) & 0xFF);
            int slot = digit * groupSize + thread;
            int position = counts[rowBase + digit] + tileOffsets[digit * tiles + tile] + counts[slot];
            counts[slot]++;
            targetKeys[position] = key;
            if (withItems != 0) targetItems[position] = tileItems[mine + k];
        }
    }
}
