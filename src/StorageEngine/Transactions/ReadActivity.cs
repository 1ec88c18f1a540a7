using System.Runtime.InteropServices;

namespace StorageEngine.Transactions;

/// <summary>
/// How many read operations one thread is running now on one environment's pages: written only by that thread,
/// with ordinary stores (volatile, never interlocked), and read by the environment's close (see <see cref="ReadActivities"/>).
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 128)]
internal sealed class ReadActivity
{
    // The count sits a cache line away from the object's header and from the neighbours it may be allocated
    // between, so that threads reading side by side share no line that each operation writes.
    [FieldOffset(64)] public int Inside;
    [FieldOffset(68)] public readonly int Thread;

    public ReadActivity(int thread) => Thread = thread;
}
