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

    private ProgressReporter? _progress;

    /// <summary>
    /// A progress reporter for a command; the tool clears it when the command fails or is cancelled (see
    /// <see cref="ClearProgress"/>).
    /// </summary>
    public ProgressReporter Progress(string activity, long total, bool quiet) =>
        _progress = new(Error, activity, total, !quiet, Interactive, ProgressConsole, ProgressTime);

    /// <summary>The console progress bars are drawn on; null for one over <see cref="Error"/> (tests set one).</summary>
    public Spectre.Console.IAnsiConsole? ProgressConsoleInstance { get; init; }

    /// <summary>The clock of the progress bars' rates; null for the system's (tests set one).</summary>
    public TimeProvider? ProgressTime { get; init; }

    private Func<Spectre.Console.IAnsiConsole>? ProgressConsole =>
        ProgressConsoleInstance is { } console ? () => console : null;

    /// <summary>
    /// Removes the progress bar of the running command, if any, before an error or "Cancelled." is written: on
    /// Ctrl+C the command ends through an exception, past the Complete call of its normal end.
    /// </summary>
    public void ClearProgress() => _progress?.Complete();

    /// <summary>
    /// Standard output as bytes, for a backup written to <c>-</c>; nothing else may be written to <see cref="Output"/>
    /// then. The caller flushes it and does not dispose it.
    /// </summary>
    public Stream OpenStandardOutput() => (standardOutput ?? Console.OpenStandardOutput)();

    /// <summary>Standard input as bytes, for a backup restored from <c>-</c>; the caller does not dispose it.</summary>
    public Stream OpenStandardInput() => (standardInput ?? Console.OpenStandardInput)();
}
