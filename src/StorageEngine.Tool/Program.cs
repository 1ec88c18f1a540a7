using System.Text;
using StorageEngine.Tool;

// Buffered UTF-8 standard streams: a dump writes millions of lines, and Console.Out flushes on every write.
using var input = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
using var output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false), 1 << 16) { AutoFlush = false };
int exitCode = ToolApp.Run(args, input, output, Console.Error, interactive: !Console.IsErrorRedirected, handleCtrlC: true);
output.Flush();
return exitCode;
