namespace StorageEngine.Paging;

/// <summary>Limits that follow from the page size.</summary>
internal static class PageSizes
{
    public const int Default = 4096;
    public const int Min = 4096;
    /// <summary>Offsets inside a page are ushort, so a page is at most 32 KB.</summary>
    public const int Max = 32768;

    /// <summary>Pages 0 and 1 hold the two checkpoint header copies.</summary>
    public const long FirstHeaderPage = 0;

    public static bool IsValid(int pageSize) => pageSize >= Min && pageSize <= Max && (pageSize & (pageSize - 1)) == 0;
}
