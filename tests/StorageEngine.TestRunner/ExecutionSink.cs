using Xunit.Abstractions;

namespace StorageEngine.TestRunner;

/// <summary>Prints one line per test result and counts them; failures with their messages and stack traces.</summary>
/// <remarks>
/// It writes to the standard output it was given, never to <see cref="Console.Out"/> at the time of a result: tests
/// that capture the console (the documentation examples call <see cref="Console.SetOut"/>) would otherwise receive
/// the result lines of tests that finish meanwhile.
/// </remarks>
internal sealed class ExecutionSink(TextWriter output) : CompletionSink<ITestAssemblyFinished>
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
                    output.WriteLine($"  pass  {passed.Test.DisplayName} ({passed.ExecutionTime:0.000} s)");
                    break;
                case ITestFailed failed:
                    Failed++;
                    output.WriteLine($"  FAIL  {failed.Test.DisplayName} ({failed.ExecutionTime:0.000} s)");
                    for (int i = 0; i < failed.Messages.Length; i++)
                    {
                        output.WriteLine($"        {failed.ExceptionTypes[i]}: {failed.Messages[i]}");
                        output.WriteLine(failed.StackTraces[i]);
                    }

                    break;
                case ITestSkipped skipped:
                    Skipped++;
                    output.WriteLine($"  skip  {skipped.Test.DisplayName}: {skipped.Reason}");
                    break;
                case IErrorMessage error:
                    Failed++;
                    output.WriteLine($"  ERROR {string.Join("; ", error.Messages)}");
                    break;
            }
        }
    }
}
