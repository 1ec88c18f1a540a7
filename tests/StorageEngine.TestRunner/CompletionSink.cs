using Xunit.Abstractions;

namespace StorageEngine.TestRunner;

/// <summary>Receives xunit's messages and signals when the message of type <typeparamref name="TFinished"/> arrives.</summary>
internal abstract class CompletionSink<TFinished> : Xunit.LongLivedMarshalByRefObject, IMessageSink, IDisposable
    where TFinished : IMessageSinkMessage
{
    private readonly ManualResetEventSlim _finished = new();

    public bool OnMessage(IMessageSinkMessage message)
    {
        Handle(message);
        if (message is TFinished)
        {
            _finished.Set();
        }

        return true;
    }

    public void WaitForCompletion() => _finished.Wait();

    public void Dispose() => _finished.Dispose();

    protected abstract void Handle(IMessageSinkMessage message);
}
