using System.Buffers;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Unicode;

namespace StorageEngine.Tool;

/// <summary>
/// Writes the dump format: one JSON object per line. A tree line <c>{"tree":"t"}</c> (with <c>"int64Keys":true</c>
/// for integer-key trees) comes before the tree's entries, so empty trees and tree options survive a reload;
/// then an entry line <c>{"tree":"t","key":...,"value":...}</c> per entry, in key order.
/// </summary>
internal sealed class DumpWriter : IDisposable
{
    private static readonly JsonWriterOptions Options = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };
    private readonly TextWriter _output;
    private readonly DumpEncoding _encoding;
    private readonly ArrayBufferWriter<byte> _buffer = new(4096);
    private readonly Utf8JsonWriter _json;

    public DumpWriter(TextWriter output, DumpEncoding encoding)
    {
        _output = output;
        _encoding = encoding;
        _json = new Utf8JsonWriter(_buffer, Options);
    }

    public void WriteTree(string name, TreeOptions options)
    {
        _json.WriteStartObject();
        _json.WriteString("tree", name);
        if ((options & TreeOptions.Int64Keys) != 0) _json.WriteBoolean("int64Keys", true);
        EndLine();
    }

    public void WriteEntry(string tree, bool int64Keys, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        _json.WriteStartObject();
        _json.WriteString("tree", tree);
        if (int64Keys && _encoding == DumpEncoding.Text) _json.WriteNumber("key", Int64Key.Read(key));
        else WriteBytes("key", key);
        WriteBytes("value", value);
        EndLine();
    }

    private void WriteBytes(string name, ReadOnlySpan<byte> bytes)
    {
        if (_encoding == DumpEncoding.Base64) _json.WriteBase64String(name, bytes);
        else if (Utf8.IsValid(bytes)) _json.WriteString(name, bytes);
        else _json.WriteBase64String(name + "64", bytes);
    }

    private void EndLine()
    {
        _json.WriteEndObject();
        _json.Flush();
        _output.Write(Encoding.UTF8.GetString(_buffer.WrittenSpan));
        _output.Write('\n');
        _buffer.ResetWrittenCount();
        _json.Reset();
    }

    public void Dispose() => _json.Dispose();
}
