namespace StorageEngine.Tool;

/// <summary>A failure the user can act on; the tool prints its message alone, without a stack trace.</summary>
internal sealed class ToolException(string message, int exitCode = ExitCodes.Error) : Exception(message)
{
    public int ExitCode { get; } = exitCode;
}
