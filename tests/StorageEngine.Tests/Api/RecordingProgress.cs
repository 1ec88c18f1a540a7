namespace StorageEngine.Tests.Api;

/// <summary>
/// Keeps every report, received synchronously on the reporting thread (unlike <see cref="Progress{T}"/>, which posts
/// them), and can run an action on each, e.g. to cancel mid-way.
/// </summary>
internal sealed class RecordingProgress<T>(Action<T>? onReport = null) : IProgress<T>
{
    public List<T> Reports { get; } = new();

    public void Report(T value)
    {
        Reports.Add(value);
        onReport?.Invoke(value);
    }
}
