using Spectre.Console;

namespace StorageEngine.Tool.Tests;

/// <summary>
/// Standard error as a terminal would receive it: a Spectre console over a string, with ANSI escape codes and no
/// colours, so that a test sees what was drawn and what was erased.
/// </summary>
internal sealed class TerminalCapture
{
    private readonly StringWriter _text = new();

    // Spectre's refresh thread writes while the test reads: the synchronized writer's calls lock on it, and so do reads.
    public TextWriter Writer { get; }

    public IAnsiConsole Console { get; }

    public TerminalCapture()
    {
        Writer = TextWriter.Synchronized(_text);
        Console = AnsiConsole.Create(new AnsiConsoleSettings
        {
            Out = new AnsiConsoleOutput(Writer),
            Ansi = AnsiSupport.Yes,
            ColorSystem = ColorSystemSupport.NoColors,
            Interactive = InteractionSupport.Yes,
        });
    }

    public string Text
    {
        get
        {
            lock (Writer) return _text.ToString();
        }
    }

    /// <summary>Waits (up to 30 s) until Spectre's refresh thread has drawn <paramref name="expected"/>.</summary>
    public bool WaitFor(string expected) => SpinWait.SpinUntil(() => Text.Contains(expected, StringComparison.Ordinal), TimeSpan.FromSeconds(30));
}
