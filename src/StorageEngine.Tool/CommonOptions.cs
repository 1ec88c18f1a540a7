using System.CommandLine;

namespace StorageEngine.Tool;

/// <summary>Arguments and options that several commands share.</summary>
internal static class CommonOptions
{
    public static Argument<string> EnvironmentPath(string description = "Directory of the environment (the one that holds data.sedb).") =>
        new("path") { Description = description };

    public static readonly Option<bool> Quiet = new("--quiet", "-q")
    {
        Description = "Print no progress.",
        Recursive = true,
    };

    public static Option<bool> Json() => new("--json") { Description = "Print JSON instead of text." };

    public static Option<DumpEncoding> Encoding() => new("--encoding", "-e")
    {
        Description = "How keys and values are written: base64 (lossless) or text (UTF-8; bytes that are not valid UTF-8 go to key64/value64 in base64).",
        DefaultValueFactory = _ => DumpEncoding.Base64,
    };
}
