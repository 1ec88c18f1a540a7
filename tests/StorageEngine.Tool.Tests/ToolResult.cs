namespace StorageEngine.Tool.Tests;

/// <summary>What one in-process run of the tool returned and printed.</summary>
public sealed record ToolResult(int ExitCode, string Output, string Error)
{
    /// <summary>Fails with everything printed unless the run succeeded.</summary>
    public ToolResult AssertSuccess()
    {
        Assert.True(ExitCode == 0, $"exit code {ExitCode}\nstdout:\n{Output}\nstderr:\n{Error}");
        return this;
    }

    /// <summary>A failure the user can read: non-zero, one 'error:' message, no stack trace.</summary>
    public ToolResult AssertCleanFailure(string expectedFragment)
    {
        Assert.True(ExitCode != 0, $"expected a failure\nstdout:\n{Output}\nstderr:\n{Error}");
        Assert.StartsWith("error: ", Error);
        Assert.Contains(expectedFragment, Error);
        Assert.DoesNotContain("   at ", Error);
        Assert.DoesNotContain("Exception", Error);
        return this;
    }
}
