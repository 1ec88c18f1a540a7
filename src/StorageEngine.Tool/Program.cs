using System.Text;
using StorageEngine.Tool;

// Buffered UTF-8 standard streams: a dump writes millions of lines, and Console.Out flushes on every write.
var stdout = StandardStreams.Output();
var stdin = StandardStreams.Input();
var input = new StreamReader(stdin, new UTF8Encoding(false));
var output = new StreamWriter(stdout, new UTF8Encoding(false), 1 << 16, leaveOpen: true) { AutoFlush = false };
int exitCode = ToolApp.Run(args, input, output, Console.Error, interactive: !Console.IsErrorRedirected, handleCtrlC: true,
    standardOutput: () => stdout, standardInput: () => stdin);
try
{
    output.Flush();
    output.Dispose();
}
catch (IOException)
{
    // The reader of standard output went away (dump | head); the command has already said how far it got.
}
return exitCode;
