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

    /// <summary>The names <c>--encoding</c> takes, as the help, the README and error messages spell them.</summary>
    public static readonly string[] EncodingNames = ["base64", "text"];

    public static Option<string> Encoding()
    {
        var option = new Option<string>("--encoding", "-e")
        {
            Description = "How keys and values are written: base64 (lossless) or text (UTF-8; bytes that are not valid UTF-8 go to key64/value64 in base64).",
            DefaultValueFactory = _ => EncodingNames[0],
            HelpName = string.Join('|', EncodingNames),
        };
        option.AcceptOnlyFromAmong(EncodingNames);
        return option;
    }

    /// <summary>The encoding an <see cref="Encoding"/> option names.</summary>
    public static DumpEncoding EncodingOf(string? name) =>
        string.Equals(name, "text", StringComparison.Ordinal) ? DumpEncoding.Text : DumpEncoding.Base64;
}
