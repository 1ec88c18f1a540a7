namespace StorageEngine.Tool.Tests;

/// <summary>Standard output whose reader goes away after some characters (as <c>head</c> does): later writes throw.</summary>
public sealed class ClosingWriter(int capacity) : StringWriter
{
    private int _written;

    public override void Write(char value)
    {
        Take(1);
        base.Write(value);
    }

    public override void Write(string? value)
    {
        Take(value?.Length ?? 0);
        base.Write(value);
    }

    public override void Write(char[] buffer, int index, int count)
    {
        Take(count);
        base.Write(buffer, index, count);
    }

    private void Take(int count)
    {
        if (_written + count > capacity) throw new IOException("Broken pipe");
        _written += count;
    }
}
