using System.Text.Json;

namespace DocumentStore;

/// <summary>A stored document: its collection, id and UTF-8 JSON.</summary>
public sealed class Document
{
    internal Document(string collection, string id, byte[] utf8Json, JsonSerializerOptions jsonOptions)
    {
        Collection = collection;
        Id = id;
        Utf8Json = utf8Json;
        JsonOptions = jsonOptions;
    }

    /// <summary>The collection that holds it.</summary>
    public string Collection { get; }

    /// <summary>Its id, unique in the collection.</summary>
    public string Id { get; }

    /// <summary>The JSON text as stored (a copy; it outlives the session).</summary>
    public byte[] Utf8Json { get; }

    private JsonSerializerOptions JsonOptions { get; }

    /// <summary>The document deserialized as <typeparamref name="T"/>.</summary>
    public T As<T>() => JsonSerializer.Deserialize<T>(Utf8Json, JsonOptions)
        ?? throw new JsonException($"Document '{Collection}/{Id}' is JSON null.");

    /// <summary>The document as a DOM.</summary>
    public JsonElement ToJsonElement() => JsonSerializer.Deserialize<JsonElement>(Utf8Json);

    /// <inheritdoc />
    public override string ToString() => $"{Collection}/{Id}";
}
