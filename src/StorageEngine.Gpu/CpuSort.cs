namespace StorageEngine.Gpu;

/// <summary>The CPU side of the sorts: an introsort made stable for items that are ascending positions.</summary>
internal static class CpuSort
{
    public static void Sort(Span<ulong> keys, Span<int> items)
    {
        if (items.IsEmpty)
        {
            keys.Sort();
            return;
        }
        keys.Sort(items);
        for (int start = 0; start < keys.Length;)
        {
            int end = start + 1;
            while (end < keys.Length && keys[end] == keys[start]) end++;
            if (end - start > 1) items[start..end].Sort();
            start = end;
        }
    }
}
