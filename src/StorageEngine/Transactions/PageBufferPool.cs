using StorageEngine.Common;

namespace StorageEngine.Transactions;

/// <summary>Single-page buffers for the writer's dirty pages, reused across transactions (only the writer uses it).</summary>
internal sealed class PageBufferPool : IDisposable
{
    private readonly Stack<NativeBuffer> _free = new();
    private readonly int _pageSize;
    private const int MaxPooled = 4096;

    public PageBufferPool(int pageSize) => _pageSize = pageSize;

    public NativeBuffer Rent() => _free.Count > 0 ? _free.Pop() : new NativeBuffer(_pageSize);

    public void Return(NativeBuffer buffer)
    {
        if (buffer.Length == _pageSize && _free.Count < MaxPooled) _free.Push(buffer);
        else buffer.Free();
    }

    public void Dispose()
    {
        while (_free.Count > 0) _free.Pop().Free();
    }
}
