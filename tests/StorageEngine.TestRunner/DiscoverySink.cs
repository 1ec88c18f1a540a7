using Xunit.Abstractions;

namespace StorageEngine.TestRunner;

/// <summary>Collects the test cases the discoverer finds.</summary>
internal sealed class DiscoverySink : CompletionSink<IDiscoveryCompleteMessage>
{
    public List<ITestCase> TestCases { get; } = [];

    protected override void Handle(IMessageSinkMessage message)
    {
        if (message is ITestCaseDiscoveryMessage discovered)
        {
            TestCases.Add(discovered.TestCase);
        }
    }
}
