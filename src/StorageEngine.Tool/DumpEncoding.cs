namespace StorageEngine.Tool;

/// <summary>How dump and load write keys and values in JSON lines.</summary>
internal enum DumpEncoding
{
    /// <summary>Base64 strings: any bytes, lossless.</summary>
    Base64,

    /// <summary>UTF-8 text where the bytes are valid UTF-8 (integer keys as numbers), base64 in key64/value64 otherwise.</summary>
    Text,
}
