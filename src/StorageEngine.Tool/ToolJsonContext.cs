using System.Text.Json;
using System.Text.Json.Serialization;

namespace StorageEngine.Tool;

/// <summary>
/// The tool's JSON output, serialized by source-generated code: no reflection, so the tool publishes as Native AOT
/// (and trims) without warnings.
/// </summary>
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web, WriteIndented = true)]
[JsonSerializable(typeof(InfoDocument))]
[JsonSerializable(typeof(StatsDocument))]
internal sealed partial class ToolJsonContext : JsonSerializerContext;
