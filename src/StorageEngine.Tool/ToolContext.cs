namespace StorageEngine.Tool;

/// <summary>The streams a command uses, so that tests can run the tool in-process.</summary>
internal sealed class ToolContext(TextReader input, TextWriter output, TextWriter error, bool interactive,
    Func<Stream>? standardOutput = null, Func<Stream>? standardInput = null)
{
    public TextReader Input { get; } = input;

    public TextWriter Output { get; } = output;

    public TextWriter Error { get; } = error;

    /// <summary>True when standard error is a terminal: progress is redrawn in place.</summary>
    public bool Interactive { get; } = interactive;

    public ProgressReporter Progress(string activity, long total, bool quiet) => new(Error, activity, total, !quiet, Interactive);

    /// <summary>
    /// Standard output as bytes, for a backup written to <c>-</c>; nothing else may be written to <see cref="Output"/>
    /// then. The caller flushes it and does not dispose it.
    /// </summary>
    public Stream OpenStandardOutput() => (standardOutput ?? Console.OpenStandardOutput)();

    /// <summary>Standard input as bytes, for a backup restored from <c>-</c>; the caller does not dispose it.</summary>
    public Stream OpenStandardInput() => (standardInput ?? Console.OpenStandardInput)();
}
