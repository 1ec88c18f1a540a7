using System.Globalization;
using System.Text;
using StorageEngine;
using StorageEngine.CrashChild;

// Usage: StorageEngine.CrashChild <directory> [--lazy] [--checkpoint-threshold BYTES] [--checkpoint-interval-ms MS]
//                                 [--journal-size BYTES] [--max-transactions N] [--async-depth N]
// Prints "ready <last>" once the environment is open (recovered), then "committed <i>" after each Commit() returns,
// and runs until killed (or until --max-transactions more transactions have committed). With --async-depth N it
// commits with CommitAsync, beginning the next transaction before awaiting, with up to N commits in flight, and
// prints "committed <i>" once commit i's task has completed.
// Usage: StorageEngine.CrashChild read-dispose-race <directory> <rounds>: see ReadDisposeRace.
if (args is ["read-dispose-race", var raceDirectory, var raceRounds])
{
    using var raceOut = Console.OpenStandardOutput();
    return ReadDisposeRace.Run(raceDirectory, int.Parse(raceRounds, CultureInfo.InvariantCulture),
        line => raceOut.Write(Encoding.ASCII.GetBytes(line + "\n")));
}

if (args.Length < 1)
{
    Console.Error.WriteLine("usage: StorageEngine.CrashChild <directory> [--lazy] [--checkpoint-threshold BYTES] [--checkpoint-interval-ms MS] [--journal-size BYTES] [--max-transactions N] [--async-depth N]");
    return 2;
}

var options = new StorageEnvironmentOptions { Path = args[0], Durability = DurabilityMode.Safe };
long maxTransactions = long.MaxValue;
int asyncDepth = 0;
for (int a = 1; a < args.Length; a++)
{
    switch (args[a])
    {
        case "--lazy": options.Durability = DurabilityMode.Lazy; break;
        case "--checkpoint-threshold": options.CheckpointThreshold = long.Parse(args[++a], CultureInfo.InvariantCulture); break;
        case "--checkpoint-interval-ms": options.CheckpointInterval = TimeSpan.FromMilliseconds(double.Parse(args[++a], CultureInfo.InvariantCulture)); break;
        case "--journal-size": options.JournalFileSize = long.Parse(args[++a], CultureInfo.InvariantCulture); break;
        case "--max-transactions": maxTransactions = long.Parse(args[++a], CultureInfo.InvariantCulture); break;
        case "--async-depth": asyncDepth = int.Parse(args[++a], CultureInfo.InvariantCulture); break;
        default:
            Console.Error.WriteLine($"unknown argument '{args[a]}'");
            return 2;
    }
}

// Unbuffered: each line is one write(2) of a few bytes to the pipe, which is atomic, so a kill never leaves the
// parent half a line, and a line the parent reads was written after the commit it names returned.
using var stdout = Console.OpenStandardOutput();
void Say(string line)
{
    stdout.Write(Encoding.ASCII.GetBytes(line + "\n"));
    stdout.Flush();
}

using var environment = StorageEnvironment.Open(options);
long last;
using (var read = environment.BeginRead()) last = CrashWorkload.LastTransaction(read);
Say($"ready {last}");

var inFlight = new Queue<(long Transaction, ValueTask Durable)>();
for (long i = last + 1; i - last <= maxTransactions; i++)
{
    using (var write = environment.BeginWrite())
    {
        CrashWorkload.Apply(i, write.CreateTree(CrashWorkload.TreeName));
        if (asyncDepth == 0) write.Commit();
        else inFlight.Enqueue((i, write.CommitAsync()));
    }
    if (asyncDepth == 0) Say($"committed {i}");
    while (inFlight.Count >= asyncDepth && inFlight.Count > 0) await Acknowledge(inFlight.Dequeue());
}
while (inFlight.Count > 0) await Acknowledge(inFlight.Dequeue());
return 0;

async Task Acknowledge((long Transaction, ValueTask Durable) commit)
{
    await commit.Durable;
    Say($"committed {commit.Transaction}");
}
