using System.Text;

namespace StorageEngine;

/// <summary>
/// The rules of a tree name and its encoding on disk: 1 to <see cref="Tree.MaxNameBytes"/> bytes of UTF-8.
/// </summary>
/// <remarks>
/// The encoder throws on an unpaired surrogate. The lenient <see cref="Encoding.UTF8"/> writes each one as
/// U+FFFD, which made "\uD800" and "\uDC00" the same tree on disk: creating both in one transaction kept
/// one tree's root and lost the other's data.
/// </remarks>
internal static class TreeName
{
    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>Returns the encoded length of <paramref name="name"/>, or throws the <see cref="ArgumentException"/> that says why it is not a tree name.</summary>
    public static int Check(string name, string parameterName = "name")
    {
        ArgumentNullException.ThrowIfNull(name, parameterName);
        if (name.Length == 0) throw new ArgumentException("A tree name must not be empty.", parameterName);
        int length;
        try
        {
            length = StrictUtf8.GetByteCount(name);
        }
        catch (EncoderFallbackException e)
        {
            throw new ArgumentException(
                $"A tree name must be valid UTF-16; this one has an unpaired surrogate (U+{(int)e.CharUnknown:X4}) at index {e.Index}, which has no UTF-8 encoding.",
                parameterName, e);
        }
        if (length > Tree.MaxNameBytes)
            throw new ArgumentException($"The tree name is {length} UTF-8 bytes; the most is {Tree.MaxNameBytes}.", parameterName);
        return length;
    }

    /// <summary>Checks <paramref name="name"/> and writes its UTF-8 bytes to <paramref name="destination"/>; returns how many.</summary>
    public static int Encode(string name, Span<byte> destination, string parameterName = "name")
    {
        Check(name, parameterName);
        return StrictUtf8.GetBytes(name, destination);
    }
}
