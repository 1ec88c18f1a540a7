namespace StorageEngine.Common;

/// <summary>
/// Least-significant-digit radix sort of 64-bit keys with a 32-bit item each, 8 bits per pass. All eight digit
/// histograms come from one read of the keys, and a pass whose digit is the same in every key is skipped, so
/// keys spanning a narrow range (integer keys of one table, prefixes of similar strings) take few passes.
/// Stable: equal keys keep their items in input order. Below a few hundred keys an introsort is faster.
/// </summary>
internal static class RadixSort
{
    private const int Radix = 256;
    private const int Digits = sizeof(ulong);
    private const int SmallInput = 256;

    /// <summary>
    /// Sorts <paramref name="keys"/> ascending with <paramref name="items"/> alongside, using the scratch spans
    /// (each at least as long as the keys) for the passes.
    /// </summary>
    public static void Sort(Span<ulong> keys, Span<int> items, Span<ulong> keyScratch, Span<int> itemScratch)
    {
        int n = keys.Length;
        if (items.Length != n || keyScratch.Length < n || itemScratch.Length < n)
            throw new ArgumentException("The items and scratch spans must be as long as the keys.");
        if (n < SmallInput)
        {
            // Introsort is not stable: order ties by item afterwards (items are positions here).
            keys.Sort(items);
            for (int start = 0; start < n;)
            {
                int end = start + 1;
                while (end < n && keys[end] == keys[start]) end++;
                if (end - start > 1) items[start..end].Sort();
                start = end;
            }
            return;
        }
        Span<int> counts = stackalloc int[Digits * Radix];
        counts.Clear();
        foreach (ulong key in keys)
        {
            for (int d = 0; d < Digits; d++) counts[d * Radix + (int)((key >> (8 * d)) & 0xFF)]++;
        }
        Span<ulong> sourceKeys = keys, targetKeys = keyScratch[..n];
        Span<int> sourceItems = items, targetItems = itemScratch[..n];
        bool inScratch = false;
        ulong first = keys[0];
        for (int d = 0; d < Digits; d++)
        {
            var histogram = counts.Slice(d * Radix, Radix);
            int shift = 8 * d;
            if (histogram[(int)((first >> shift) & 0xFF)] == n) continue; // one digit value: nothing to move
            int offset = 0;
            for (int b = 0; b < Radix; b++)
            {
                int c = histogram[b];
                histogram[b] = offset;
                offset += c;
            }
            for (int i = 0; i < n; i++)
            {
                ulong key = sourceKeys[i];
                int slot = histogram[(int)((key >> shift) & 0xFF)]++;
                targetKeys[slot] = key;
                targetItems[slot] = sourceItems[i];
            }
            var k = sourceKeys;
            sourceKeys = targetKeys;
            targetKeys = k;
            var t = sourceItems;
            sourceItems = targetItems;
            targetItems = t;
            inScratch = !inScratch;
        }
        if (inScratch)
        {
            sourceKeys.CopyTo(keys);
            sourceItems.CopyTo(items);
        }
    }
}
