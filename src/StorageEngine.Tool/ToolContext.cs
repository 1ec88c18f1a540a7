namespace StorageEngine.Tool;

/// <summary>The streams a command uses, so that tests can run the tool in-process.</summary>
internal sealed class ToolContext(TextReader input, TextWriter output, TextWriter error, bool interactive)
{
    public TextReader Input { get; } = input;

    public TextWriter Output { get; } = output;

    public TextWriter Error { get; } = error;

    /// <summary>True when standard error is a terminal: progress is redrawn in place.</summary>
    public bool Interactive { get; } = interactive;

    public ProgressReporter Progress(string activity, long total, bool quiet) => new(Error, activity, total, !quiet, Interactive);
}
