namespace StorageEngine.Tests.Platform;

/// <summary>
/// A fact that runs only where the kernel answers cachestat(2) (Linux 6.5 and later, natively: qemu-user and
/// Wine do not), and is reported skipped, with the reason, everywhere else: it counts a file's dirty pages.
/// </summary>
public sealed class CachestatFactAttribute : FactAttribute
{
    public CachestatFactAttribute()
    {
        if (!PageCacheState.IsAvailable)
        {
            Skip = "needs cachestat(2) (Linux 6.5 or later, not under qemu-user or Wine) to count a file's dirty pages.";
        }
    }
}
