using System.Text;
using System.Text.Json;

namespace StorageEngine.Tool;

/// <summary>One parsed line of the dump format (see <see cref="DumpWriter"/>): a tree line when Key is null.</summary>
internal sealed record DumpLine(string Tree, bool Int64Keys, byte[]? Key, byte[]? Value)
{
    /// <exception cref="FormatException">The line is not a valid dump line.</exception>
    public static DumpLine Parse(string line, DumpEncoding encoding)
    {
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(line);
        }
        catch (JsonException e)
        {
            throw new FormatException("not valid JSON: " + e.Message.Split(" Path:")[0]);
        }
        using (document)
        {
            var root = document.RootElement;
            if (root.ValueKind != JsonValueKind.Object) throw new FormatException("a line must be a JSON object.");
            if (!root.TryGetProperty("tree", out var tree) || tree.ValueKind != JsonValueKind.String || tree.GetString() is not { Length: > 0 } name)
                throw new FormatException("\"tree\" (a non-empty string) is missing.");
            bool int64Keys = root.TryGetProperty("int64Keys", out var flag) && flag.ValueKind == JsonValueKind.True;
            byte[]? key = ReadBytes(root, "key", encoding, allowNumber: true, out bool numericKey);
            byte[]? value = ReadBytes(root, "value", encoding, allowNumber: false, out _);
            if (key is null && value is not null) throw new FormatException("the line has a value but no key.");
            if (key is not null && value is null) throw new FormatException("the line has a key but no value.");
            return new DumpLine(name, int64Keys || numericKey, key, value);
        }
    }

    private static byte[]? ReadBytes(JsonElement root, string name, DumpEncoding encoding, bool allowNumber, out bool number)
    {
        number = false;
        if (root.TryGetProperty(name + "64", out var base64)) return Base64(base64, name + "64");
        if (!root.TryGetProperty(name, out var element)) return null;
        if (allowNumber && element.ValueKind == JsonValueKind.Number)
        {
            if (!element.TryGetInt64(out long integer)) throw new FormatException($"\"{name}\" is a number but not a 64-bit integer.");
            number = true;
            var bytes = new byte[Int64Key.Size];
            Int64Key.Write(bytes, integer);
            return bytes;
        }
        if (element.ValueKind != JsonValueKind.String) throw new FormatException($"\"{name}\" must be a string.");
        return encoding == DumpEncoding.Base64 ? Base64(element, name) : Encoding.UTF8.GetBytes(element.GetString()!);
    }

    private static byte[] Base64(JsonElement element, string name)
    {
        if (element.ValueKind == JsonValueKind.String && element.TryGetBytesFromBase64(out var bytes)) return bytes;
        throw new FormatException($"\"{name}\" is not a base64 string (was the dump written with --encoding text?).");
    }
}
