using Xunit.Abstractions;

namespace StorageEngine.TestRunner;

/// <summary>Prints one line per test result and counts them; failures with their messages and stack traces.</summary>
internal sealed class ExecutionSink : CompletionSink<ITestAssemblyFinished>
{
    private readonly object _console = new();

    public int Passed { get; private set; }

    public int Failed { get; private set; }

    public int Skipped { get; private set; }

    protected override void Handle(IMessageSinkMessage message)
    {
        lock (_console)
        {
            switch (message)
            {
                case ITestPassed passed:
                    Passed++;
                    Console.WriteLine($"  pass  {passed.Test.DisplayName} ({passed.ExecutionTime:0.000} s)");
                    break;
                case ITestFailed failed:
                    Failed++;
                    Console.WriteLine($"  FAIL  {failed.Test.DisplayName} ({failed.ExecutionTime:0.000} s)");
                    for (int i = 0; i < failed.Messages.Length; i++)
                    {
                        Console.WriteLine($"        {failed.ExceptionTypes[i]}: {failed.Messages[i]}");
                        Console.WriteLine(failed.StackTraces[i]);
                    }

                    break;
                case ITestSkipped skipped:
                    Skipped++;
                    Console.WriteLine($"  skip  {skipped.Test.DisplayName}: {skipped.Reason}");
                    break;
                case IErrorMessage error:
                    Failed++;
                    Console.WriteLine($"  ERROR {string.Join("; ", error.Messages)}");
                    break;
            }
        }
    }
}
