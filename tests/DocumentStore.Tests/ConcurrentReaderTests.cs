namespace DocumentStore.Tests;

public sealed class ConcurrentReaderTests
{
    [Fact]
    public async Task Readers_running_beside_a_writer_always_see_documents_and_indexes_of_one_commit()
    {
        using var db = TestDatabase.InMemory();
        const int Accounts = 20;
        db.Database.EnsureIndex("accounts", "balance");
        using (var w = db.Database.BeginWrite())
        {
            for (int i = 0; i < Accounts; i++) w.StoreJson("accounts", $"a{i:D2}", """{"balance": 100}""");
            w.Commit();
        }

        using var stop = new CancellationTokenSource();
        var writer = Task.Run(() =>
        {
            // Each commit moves money between two accounts: the total stays 2000 in every snapshot.
            var random = new Random(1);
            for (int n = 0; n < 300; n++)
            {
                using var w = db.Database.BeginWrite();
                string from = $"a{random.Next(Accounts):D2}", to = $"a{random.Next(Accounts):D2}";
                if (from == to) continue;
                double a = w.Get("accounts", from)!.ToJsonElement().GetProperty("balance").GetDouble();
                double b = w.Get("accounts", to)!.ToJsonElement().GetProperty("balance").GetDouble();
                w.StoreJson("accounts", from, $$"""{"balance": {{a - 7}}}""");
                w.StoreJson("accounts", to, $$"""{"balance": {{b + 7}}}""");
                w.Commit();
            }
            stop.Cancel();
        });
        var readers = Enumerable.Range(0, 4).Select(_ => Task.Run(() =>
        {
            int snapshots = 0;
            while (!stop.IsCancellationRequested || snapshots == 0)
            {
                using var s = db.Database.BeginRead();
                var viaIndex = s.QueryAll("accounts", "balance", IndexRange.All).ToList();
                Assert.Equal(Accounts, viaIndex.Count);
                Assert.Equal(Accounts * 100, viaIndex.Sum(d => d.ToJsonElement().GetProperty("balance").GetDouble()));
                var balances = viaIndex.Select(d => d.ToJsonElement().GetProperty("balance").GetDouble()).ToList();
                Assert.Equal(balances.Order(), balances);
                snapshots++;
            }
            return snapshots;
        })).ToArray();

        await writer;
        var counts = await Task.WhenAll(readers);
        Assert.All(counts, c => Assert.True(c > 0));
    }
}
