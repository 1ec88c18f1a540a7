using System.Text;

namespace DocumentStore.Benchmarks;

/// <summary>
/// Deterministic documents of about 1 KB: <c>city</c> one of <see cref="Cities"/> strings, <c>age</c> 0 to 99,
/// a name, a score, tags and filler text. The same seed gives both engines the same documents.
/// </summary>
internal static class DocumentGenerator
{
    public const int Cities = 200;
    public const int Ages = 100;
    private const string Words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat";
    private static readonly string[] s_words = Words.Split(' ');

    public static string Id(long n) => $"doc-{n:D9}";

    public static string City(int n) => $"city-{n:D3}";

    public static SampleDocument Create(long n, int city, int age, Random random)
    {
        var text = new StringBuilder(900);
        while (text.Length < 820) text.Append(s_words[random.Next(s_words.Length)]).Append(' ');
        string json = "{\"name\":\"user " + n + "\",\"city\":\"" + City(city) + "\",\"age\":" + age +
            ",\"score\":" + (random.Next(100_000) / 100.0).ToString(System.Globalization.CultureInfo.InvariantCulture) +
            ",\"active\":" + (n % 3 != 0 ? "true" : "false") + ",\"tags\":[\"t" + random.Next(50) + "\",\"t" + random.Next(50) +
            "\"],\"text\":\"" + text.ToString().TrimEnd() + "\"}";
        return new SampleDocument(Id(n), json);
    }
}
