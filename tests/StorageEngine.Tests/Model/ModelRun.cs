using StorageEngine.Platform;
using ModelState = System.Collections.Generic.Dictionary<string, System.Collections.Generic.SortedDictionary<byte[], byte[]>>;

namespace StorageEngine.Tests.Model;

/// <summary>
/// One seeded run of random operations against an environment in Safe mode on a <see cref="MemoryFileSystem"/>,
/// checked after every step against a model: a sorted dictionary per named tree for the committed state, and a
/// private copy of it for the open write transaction. Everything random comes from the seed and checkpoints run
/// only when the run asks for one, so a seed replays exactly the same steps.
/// </summary>
internal sealed class ModelRun
{
    private const string MainTree = "main";
    private const int FullCompareInterval = 500;
    private const int CheckInterval = 5000;
    private const int PhaseLength = 2000;
    private const int HistoryLength = 40;
    private static readonly string[] OptionalTrees = ["second", "third"];

    private readonly int _seed;
    private readonly int _operations;
    private readonly Random _random;
    private readonly MemoryFileSystem _fileSystem = new();
    private readonly StorageEnvironmentOptions _options;
    private readonly Queue<string> _history = new();
    private StorageEnvironment? _environment;
    private ModelState _committed = NewState();
    private ModelState? _pending;
    private bool _pendingChanged;
    private WriteTransaction? _writer;
    private ReadTransaction? _heldReader;
    private ModelState? _heldState;
    private long _heldSnapshotId;
    private int _heldCommitsLeft;
    private long _lastCommittedId;
    private bool _growing = true;
    private int _step;
    private int _commits;
    private int _reopens;
    private int _crashes;
    private int _heldReaders;
    private int _largestTree;
    private long _sequence;
    private int _bulkSteps;

    public ModelRun(int seed, int operations)
    {
        _seed = seed;
        _operations = operations;
        _random = new Random(seed);
        _options = new StorageEnvironmentOptions
        {
            Path = "/db",
            Durability = DurabilityMode.Safe,
            FileSystem = _fileSystem,
            // Mostly the default page size; now and then a larger one, which moves the overflow threshold.
            PageSize = _random.Next(4) == 0 ? 8192 : 4096,
            JournalFileSize = 1 << 20,
            // Background checkpoints would make the outcome of a power loss depend on thread timing; the run
            // checkpoints at random steps of its own instead.
            CheckpointThreshold = long.MaxValue,
            CheckpointInterval = TimeSpan.FromHours(1),
        };
    }

    private StorageEnvironment Environment => _environment ?? throw new InvalidOperationException("No environment is open.");

    /// <summary>What the run did, for the test output.</summary>
    public string Summary =>
        $"seed {_seed}: {_options.PageSize}-byte pages, {_operations} steps, {_commits} commits (last transaction {_lastCommittedId}), {_reopens} reopens, " +
        $"{_crashes} crashes, {_heldReaders} long-lived readers, {_bulkSteps} bulk puts, largest tree {_largestTree} entries, final trees: " +
        string.Join(", ", _committed.Select(t => $"{t.Key}={t.Value.Count}"));

    /// <summary>Runs every step; a failure is rethrown with the seed and the step that reproduce it.</summary>
    public void Run()
    {
        try
        {
            Open();
            _step = 0;
            BeginWriterIfNeeded();
            _writer!.CreateTree(MainTree);
            _pending![MainTree] = NewTree();
            _pendingChanged = true;
            Commit();
            for (_step = 1; _step <= _operations; _step++)
            {
                if (_step % PhaseLength == 0) _growing = !_growing;
                Step();
                if (_step % FullCompareInterval == 0) CompareEverything();
                if (_step % CheckInterval == 0 && _writer is null) AssertHealthy();
            }
            Finish();
        }
        catch (Exception e)
        {
            throw new Xunit.Sdk.XunitException(
                $"Model run failed with seed {_seed} at step {_step} (reproduce with STORAGEENGINE_MODEL_SEED={_seed} " +
                $"and STORAGEENGINE_MODEL_OPS >= {_step}).{System.Environment.NewLine}Last steps:{System.Environment.NewLine}  " +
                string.Join(System.Environment.NewLine + "  ", _history) + System.Environment.NewLine +
                $"{e.GetType().Name}: {e.Message}", e);
        }
        finally
        {
            try
            {
                _environment?.SimulateCrash();
            }
            catch (Exception)
            {
                // Releasing a failed run's environment must not hide why it failed.
            }
        }
    }

    private void Step()
    {
        int roll = _random.Next(1000);
        int put = _growing ? 400 : 150;
        int delete = _growing ? 50 : 300;
        if ((roll -= put) < 0) Put();
        else if ((roll -= delete) < 0) Delete();
        else if ((roll -= 200) < 0) Get();
        else if ((roll -= 60) < 0) Scan(forward: true);
        else if ((roll -= 60) < 0) Scan(forward: false);
        else if ((roll -= 70) < 0)
        {
            // Mostly commit real work; now and then an empty transaction.
            if (_writer is not null || _random.Next(5) == 0) Commit();
            else Put();
        }
        else if ((roll -= 15) < 0) Abort();
        else if ((roll -= 8) < 0) CreateTree();
        else if ((roll -= 5) < 0) DeleteTree();
        else if ((roll -= 4) < 0) Reopen();
        else if ((roll -= 4) < 0) CrashProcess();
        else if ((roll -= 5) < 0) LosePower();
        else if ((roll -= 20) < 0) UseHeldReader();
        else if ((roll -= 6) < 0) Checkpoint();
        else if ((roll -= 10) < 0) CompareTreeNames();
        else if ((roll -= _growing ? 15 : 3) < 0) BulkPut();
        else if ((roll -= _growing ? 2 : 8) < 0) DeleteRangeWithCursor();
        else Get();
    }

    private void Put()
    {
        var state = BeginWriterIfNeeded();
        string name = PickTree(state);
        var model = state[name];
        byte[] key = model.Count > 0 && _random.Next(4) == 0 ? PickKey(model) : NewKey();
        byte[] value = NewValue();
        Record($"put {name} {Hex(key)} = {value.Length} bytes{(model.ContainsKey(key) ? " (overwrite)" : "")}");
        var tree = _writer!.OpenTree(name);
        tree.Put(key, value);
        model[key] = value;
        _pendingChanged = true;
        ExpectEntry(tree, key, value, "after put");
        ExpectCount(tree, model, "after put");
    }

    private void Delete()
    {
        var state = BeginWriterIfNeeded();
        string name = PickTree(state);
        var model = state[name];
        byte[] key = model.Count > 0 && _random.Next(3) != 0 ? PickKey(model) : NewKey();
        bool present = model.Remove(key);
        Record($"delete {name} {Hex(key)} ({(present ? "present" : "absent")})");
        var tree = _writer!.OpenTree(name);
        bool deleted = tree.Delete(key);
        if (deleted != present) Assert.Fail($"Delete of {Hex(key)} in '{name}' returned {deleted}; the key was {(present ? "present" : "absent")}.");
        _pendingChanged |= present;
        ExpectEntry(tree, key, null, "after delete");
        ExpectCount(tree, model, "after delete");
    }

    /// <summary>Many puts in one step: ascending or descending runs (the append split path) or random keys.</summary>
    private void BulkPut()
    {
        var state = BeginWriterIfNeeded();
        string name = PickTree(state);
        var model = state[name];
        int count = _random.Next(20, 400);
        int pattern = _random.Next(3);
        Record($"bulk put {count} {(pattern == 0 ? "ascending" : pattern == 1 ? "descending" : "random")} keys into {name}");
        var tree = _writer!.OpenTree(name);
        long first = _sequence;
        _sequence += count;
        _bulkSteps++;
        for (int i = 0; i < count; i++)
        {
            byte[] key;
            if (pattern == 2) key = NewKey();
            else
            {
                key = new byte[9];
                key[0] = (byte)'s';
                System.Buffers.Binary.BinaryPrimitives.WriteInt64BigEndian(key.AsSpan(1), pattern == 0 ? first + i : long.MaxValue - first - i);
            }
            var value = new byte[_random.Next(0, 100)];
            _random.NextBytes(value);
            tree.Put(key, value);
            model[key] = value;
        }
        _pendingChanged = true;
        ExpectCount(tree, model, "after bulk put");
    }

    /// <summary>Deletes every entry of a random range while walking it with a cursor, which must follow the deletions.</summary>
    private void DeleteRangeWithCursor()
    {
        var state = BeginWriterIfNeeded();
        string name = PickTree(state);
        var model = state[name];
        byte[]? start = _random.Next(4) == 0 ? null : AnyKey(model);
        byte[]? end = _random.Next(4) == 0 ? null : AnyKey(model);
        if (start is not null && end is not null && ByteArrayComparer.Instance.Compare(start, end) > 0) (start, end) = (end, start);
        var range = new KeyRange(start, end);
        var expected = model.Keys.Where(k => range.Contains(k)).ToList();
        Record($"delete range [{Hex(start)}, {Hex(end)}) of {name} with a cursor ({expected.Count} entries)");
        var tree = _writer!.OpenTree(name);
        int deleted = 0;
        using (var cursor = tree.CreateCursor(range))
        {
            for (bool on = cursor.First(); on; on = cursor.Next())
            {
                byte[] key = cursor.Key.ToArray();
                if (deleted >= expected.Count || !key.AsSpan().SequenceEqual(expected[deleted]))
                    Assert.Fail($"Deleting through a cursor, entry {deleted} is {Hex(key)}; the model has {(deleted < expected.Count ? Hex(expected[deleted]) : "no more")}.");
                if (!tree.Delete(key)) Assert.Fail($"Delete of {Hex(key)}, just read by the cursor, returned false.");
                model.Remove(key);
                deleted++;
            }
        }
        if (deleted != expected.Count) Assert.Fail($"The cursor stopped after deleting {deleted} of the range's {expected.Count} entries.");
        _pendingChanged |= deleted > 0;
        using (var check = tree.CreateCursor(range))
        {
            if (check.First()) Assert.Fail($"{Hex(check.Key.ToArray())} is still in the deleted range.");
        }
        ExpectCount(tree, model, "after deleting a range");
    }

    private void Get()
    {
        bool inWriter = _writer is not null && _random.Next(4) != 0;
        var state = inWriter ? _pending! : _committed;
        string name = PickTree(state);
        var model = state[name];
        byte[] key = model.Count > 0 && _random.Next(2) == 0 ? PickKey(model) : NewKey();
        Record($"get {name} {Hex(key)} in {(inWriter ? "writer" : "reader")}");
        model.TryGetValue(key, out byte[]? expected);
        if (inWriter)
        {
            ExpectEntry(_writer!.OpenTree(name), key, expected, "get in the write transaction");
            return;
        }
        using var reader = Environment.BeginRead();
        ExpectEntry(reader.OpenTree(name), key, expected, "get in a read transaction");
    }

    private void Scan(bool forward)
    {
        bool inWriter = _writer is not null && _random.Next(4) != 0;
        var state = inWriter ? _pending! : _committed;
        string name = PickTree(state);
        if (inWriter)
        {
            ScanAndCompare(_writer!.OpenTree(name), state[name], forward, "writer");
            return;
        }
        using var reader = Environment.BeginRead();
        ScanAndCompare(reader.OpenTree(name), state[name], forward, "reader");
    }

    /// <summary>Walks a random range from a random start for a random number of entries and compares with the model.</summary>
    private void ScanAndCompare(Tree tree, SortedDictionary<byte[], byte[]> model, bool forward, string where)
    {
        byte[]? start = _random.Next(3) == 0 ? null : AnyKey(model);
        byte[]? end = _random.Next(3) == 0 ? null : AnyKey(model);
        if (start is not null && end is not null && ByteArrayComparer.Instance.Compare(start, end) > 0) (start, end) = (end, start);
        byte[]? from = _random.Next(2) == 0 ? null : AnyKey(model);
        int limit = _random.Next(1, 200);
        Record($"scan {(forward ? "forward" : "backward")} {tree.Name} in {where} [{Hex(start)}, {Hex(end)}) from {Hex(from)} up to {limit}");

        var range = new KeyRange(start, end);
        var expected = model.Where(e => range.Contains(e.Key)
            && (from is null || (forward ? ByteArrayComparer.Instance.Compare(e.Key, from) >= 0 : ByteArrayComparer.Instance.Compare(e.Key, from) <= 0)));
        if (!forward) expected = expected.Reverse();
        using var expectedEntries = expected.Take(limit).GetEnumerator();

        using var cursor = tree.CreateCursor(range);
        bool on = forward
            ? from is null ? cursor.First() : cursor.Seek(from)
            : from is null ? cursor.Last() : cursor.SeekAtOrBefore(from);
        int seen = 0;
        while (seen < limit)
        {
            bool more = expectedEntries.MoveNext();
            if (on != more)
            {
                Assert.Fail(on
                    ? $"The cursor found {Hex(cursor.Key.ToArray())} after {seen} entries where the model has no more."
                    : $"The cursor ended after {seen} entries where the model has {Hex(expectedEntries.Current.Key)} next.");
            }
            if (!on) break;
            var (key, value) = expectedEntries.Current;
            if (!cursor.Key.SequenceEqual(key))
                Assert.Fail($"Entry {seen} of the scan is {Hex(cursor.Key.ToArray())}; the model has {Hex(key)}.");
            if (!cursor.Value.SequenceEqual(value))
                Assert.Fail($"The value of {Hex(key)} (entry {seen} of the scan) is {cursor.Value.Length} bytes that differ from the model's {value.Length}.");
            seen++;
            on = forward ? cursor.Next() : cursor.Previous();
        }
    }

    private void Commit()
    {
        bool wasOpen = _writer is not null;
        BeginWriterIfNeeded();
        // A third of the commits go through CommitAsync, awaited before the next step (the model is sequential).
        bool async = _random.Next(3) == 0;
        Record($"commit{(async ? " async" : "")}{(wasOpen ? "" : " (empty transaction)")}");
        if (async) _writer!.CommitAsync().AsTask().GetAwaiter().GetResult();
        else _writer!.Commit();
        _writer = null;
        long id = Environment.LastCommittedTransactionId;
        if (_pendingChanged ? id != _lastCommittedId + 1 : id < _lastCommittedId || id > _lastCommittedId + 1)
            Assert.Fail($"The commit left the last transaction id at {id}; the previous one was {_lastCommittedId} and the transaction {(_pendingChanged ? "changed" : "did not change")} data.");
        _lastCommittedId = id;
        _committed = _pending!;
        _pending = null;
        _commits++;
        _largestTree = Math.Max(_largestTree, _committed.Values.Max(t => t.Count));
        ExpectCounts(_committed, "after commit");
        if (_heldReader is not null && --_heldCommitsLeft <= 0) ReleaseHeldReader();
    }

    private void Abort()
    {
        if (_writer is null) return;
        Record("abort");
        if (_random.Next(2) == 0) _writer.Abort();
        else _writer.Dispose();
        _writer = null;
        _pending = null;
        ExpectCounts(_committed, "after abort");
    }

    private void CreateTree()
    {
        var state = BeginWriterIfNeeded();
        string name = OptionalTrees[_random.Next(OptionalTrees.Length)];
        bool exists = state.TryGetValue(name, out var model);
        Record($"create tree {name}{(exists ? " (exists)" : "")}");
        var tree = _writer!.CreateTree(name);
        if (!exists)
        {
            model = NewTree();
            state[name] = model;
            _pendingChanged = true;
        }
        ExpectCount(tree, model!, "after create tree");
        ExpectTreeNames(_writer, state, "after create tree");
    }

    private void DeleteTree()
    {
        var state = BeginWriterIfNeeded();
        string name = OptionalTrees[_random.Next(OptionalTrees.Length)];
        bool exists = state.Remove(name);
        Record($"delete tree {name}{(exists ? "" : " (absent)")}");
        bool deleted = _writer!.DeleteTree(name);
        if (deleted != exists) Assert.Fail($"DeleteTree('{name}') returned {deleted}; the tree {(exists ? "existed" : "did not exist")}.");
        _pendingChanged |= exists;
        if (_writer.TryOpenTree(name, out _)) Assert.Fail($"The tree '{name}' can still be opened after DeleteTree.");
        ExpectTreeNames(_writer, state, "after delete tree");
    }

    private void Reopen()
    {
        ReleaseHeldReader();
        Record(_writer is null ? "reopen" : "reopen with the write transaction open (dispose, then end the writer)");
        Environment.Dispose();
        if (_writer is not null)
        {
            // Disposing waits for open transactions; ending the writer is what closes the environment.
            _writer.Dispose();
            _writer = null;
            _pending = null;
        }
        _environment = null;
        Open();
        _reopens++;
        ExpectRecovered("after reopen");
    }

    private void CrashProcess()
    {
        Record($"process crash{(_writer is null ? "" : " with the write transaction open")}");
        Crash();
        _fileSystem.SimulateProcessCrash();
        Open();
        _crashes++;
        ExpectRecovered("after a process crash");
    }

    private void LosePower()
    {
        int mode = _random.Next(3);
        int fileSeed = _random.Next();
        Record(mode switch
        {
            0 => "power loss, unsynced writes dropped",
            1 => $"power loss, unsynced writes survive at random (seed {fileSeed})",
            _ => $"power loss, unsynced writes survive at random and tear (seed {fileSeed})",
        });
        Crash();
        _fileSystem.SimulatePowerLoss(mode == 0 ? null : new Random(fileSeed), tearWrites: mode == 2);
        Open();
        _crashes++;
        ExpectRecovered("after a power loss");
    }

    /// <summary>The process dies: open transactions are abandoned, not ended, as they would be.</summary>
    private void Crash()
    {
        Environment.SimulateCrash();
        _environment = null;
        _writer = null;
        _pending = null;
        _heldReader = null;
        _heldState = null;
    }

    private void UseHeldReader()
    {
        if (_heldReader is null)
        {
            _heldReader = Environment.BeginRead();
            _heldState = Clone(_committed);
            _heldSnapshotId = _lastCommittedId;
            _heldCommitsLeft = _random.Next(2, 12);
            _heldReaders++;
            Record($"hold a reader on transaction {_heldSnapshotId} for {_heldCommitsLeft} commits");
            if (_heldReader.SnapshotId != _heldSnapshotId)
                Assert.Fail($"A new reader sees transaction {_heldReader.SnapshotId}, not the last committed {_heldSnapshotId}.");
            return;
        }
        string name = PickTree(_heldState!);
        var model = _heldState![name];
        if (_random.Next(2) == 0)
        {
            byte[] key = model.Count > 0 && _random.Next(2) == 0 ? PickKey(model) : NewKey();
            Record($"get {name} {Hex(key)} in the reader held on transaction {_heldSnapshotId}");
            model.TryGetValue(key, out byte[]? expected);
            ExpectEntry(_heldReader.OpenTree(name), key, expected, $"get in the reader held on transaction {_heldSnapshotId}");
        }
        else
        {
            ScanAndCompare(_heldReader.OpenTree(name), model, _random.Next(2) == 0, $"the reader held on transaction {_heldSnapshotId}");
        }
    }

    private void ReleaseHeldReader()
    {
        if (_heldReader is null) return;
        Record($"compare and release the reader held on transaction {_heldSnapshotId}");
        if (_heldReader.SnapshotId != _heldSnapshotId)
            Assert.Fail($"The held reader's snapshot id changed from {_heldSnapshotId} to {_heldReader.SnapshotId}.");
        CompareAll(_heldReader, _heldState!, $"the reader held on transaction {_heldSnapshotId}");
        _heldReader.Dispose();
        _heldReader = null;
        _heldState = null;
    }

    private void Checkpoint()
    {
        Record("checkpoint");
        Environment.Checkpoint();
    }

    private void CompareTreeNames()
    {
        Record("compare tree names");
        if (_writer is not null) ExpectTreeNames(_writer, _pending!, "tree names in the writer");
        using var reader = Environment.BeginRead();
        ExpectTreeNames(reader, _committed, "tree names in a reader");
    }

    private void Finish()
    {
        _step = _operations + 1;
        ReleaseHeldReader();
        if (_writer is not null) Commit();
        CompareEverything();
        AssertHealthy();
        Reopen();
        AssertHealthy();
        Environment.Dispose();
        _environment = null;
    }

    private void AssertHealthy()
    {
        Record("check");
        var report = Environment.Check();
        if (!report.IsHealthy)
            Assert.Fail($"Check found {report.Problems.Count} problems:{System.Environment.NewLine}" + string.Join(System.Environment.NewLine, report.Problems));
    }

    private void Open()
    {
        _environment = StorageEnvironment.Open(_options);
    }

    private ModelState BeginWriterIfNeeded()
    {
        if (_writer is not null) return _pending!;
        _writer = Environment.BeginWrite();
        if (_writer.SnapshotId != _lastCommittedId)
            Assert.Fail($"The write transaction starts from transaction {_writer.SnapshotId}, not the last committed {_lastCommittedId}.");
        _pending = Clone(_committed);
        _pendingChanged = false;
        return _pending;
    }

    /// <summary>After a reopen or crash: the last commit is the last transaction, and every committed entry is there.</summary>
    private void ExpectRecovered(string when)
    {
        if (Environment.LastCommittedTransactionId != _lastCommittedId)
            Assert.Fail($"{when}: the last transaction is {Environment.LastCommittedTransactionId}; {_lastCommittedId} was committed.");
        using var reader = Environment.BeginRead();
        CompareAll(reader, _committed, when);
    }

    private void CompareEverything()
    {
        Record("compare everything");
        if (_writer is not null) CompareAll(_writer, _pending!, "the write transaction");
        using (var reader = Environment.BeginRead()) CompareAll(reader, _committed, "a read transaction");
        if (_heldReader is not null) CompareAll(_heldReader, _heldState!, $"the reader held on transaction {_heldSnapshotId}");
    }

    private static void CompareAll(Transaction transaction, ModelState state, string where)
    {
        ExpectTreeNames(transaction, state, where);
        foreach (var (name, model) in state)
        {
            var tree = transaction.OpenTree(name);
            ExpectCount(tree, model, where);
            using var cursor = tree.CreateCursor();
            bool on = cursor.First();
            int index = 0;
            foreach (var (key, value) in model)
            {
                if (!on) Assert.Fail($"{where}: tree '{name}' ends after {index} entries; the model has {model.Count}, next {Hex(key)}.");
                if (!cursor.Key.SequenceEqual(key))
                    Assert.Fail($"{where}: entry {index} of tree '{name}' is {Hex(cursor.Key.ToArray())}; the model has {Hex(key)}.");
                if (!cursor.Value.SequenceEqual(value))
                    Assert.Fail($"{where}: the value of {Hex(key)} in tree '{name}' ({cursor.Value.Length} bytes) differs from the model's ({value.Length} bytes).");
                on = cursor.Next();
                index++;
            }
            if (on) Assert.Fail($"{where}: tree '{name}' has {Hex(cursor.Key.ToArray())} after the model's last entry.");
        }
    }

    private void ExpectCounts(ModelState state, string where)
    {
        using var reader = Environment.BeginRead();
        ExpectTreeNames(reader, state, where);
        foreach (var (name, model) in state) ExpectCount(reader.OpenTree(name), model, where);
    }

    private static void ExpectTreeNames(Transaction transaction, ModelState state, string where)
    {
        var expected = state.Keys.Order(StringComparer.Ordinal).ToList();
        var actual = transaction.GetTreeNames();
        if (!expected.SequenceEqual(actual))
            Assert.Fail($"{where}: the trees are [{string.Join(", ", actual)}]; the model has [{string.Join(", ", expected)}].");
    }

    private static void ExpectCount(Tree tree, SortedDictionary<byte[], byte[]> model, string where)
    {
        if (tree.Count != model.Count) Assert.Fail($"{where}: tree '{tree.Name}' counts {tree.Count} entries; the model has {model.Count}.");
    }

    private static void ExpectEntry(Tree tree, byte[] key, byte[]? expected, string where)
    {
        bool found = tree.TryGet(key, out var actual);
        if (expected is null)
        {
            if (found) Assert.Fail($"{where}: {Hex(key)} in tree '{tree.Name}' has a {actual.Length}-byte value; the model has no such key.");
            return;
        }
        if (!found) Assert.Fail($"{where}: {Hex(key)} is missing from tree '{tree.Name}'; the model has a {expected.Length}-byte value.");
        if (!actual.SequenceEqual(expected))
            Assert.Fail($"{where}: the value of {Hex(key)} in tree '{tree.Name}' ({actual.Length} bytes) differs from the model's ({expected.Length} bytes).");
    }

    private string PickTree(ModelState state)
    {
        if (state.Count == 1 || _random.Next(5) != 0) return MainTree;
        var others = state.Keys.Where(n => n != MainTree).ToList();
        return others[_random.Next(others.Count)];
    }

    private byte[] PickKey(SortedDictionary<byte[], byte[]> model) => model.Keys.ElementAt(_random.Next(model.Count));

    private byte[] AnyKey(SortedDictionary<byte[], byte[]> model) =>
        model.Count > 0 && _random.Next(2) == 0 ? PickKey(model) : NewKey();

    /// <summary>Mostly short keys over four letters, so that overwrites and deletes hit; sometimes long keys of any bytes.</summary>
    private byte[] NewKey()
    {
        int roll = _random.Next(100);
        if (roll < 90)
        {
            var key = new byte[roll < 60 ? _random.Next(1, 4) : _random.Next(4, 9)];
            for (int i = 0; i < key.Length; i++) key[i] = (byte)('a' + _random.Next(4));
            return key;
        }
        var bytes = new byte[_random.Next(9, 65)];
        _random.NextBytes(bytes);
        return bytes;
    }

    /// <summary>Mostly small values; some empty, some around the inline limit, some large enough for overflow pages.</summary>
    private byte[] NewValue()
    {
        int roll = _random.Next(100);
        int length = roll switch
        {
            < 5 => 0,
            < 10 => _random.Next(2 << 10, 20 << 10),
            < 14 => _random.Next(200, 1100),
            _ => _random.Next(1, 60),
        };
        var value = new byte[length];
        _random.NextBytes(value);
        return value;
    }

    private void Record(string step)
    {
        if (_history.Count == HistoryLength) _history.Dequeue();
        _history.Enqueue($"{_step}: {step}");
    }

    private static ModelState NewState() => new(StringComparer.Ordinal);

    private static SortedDictionary<byte[], byte[]> NewTree() => new(ByteArrayComparer.Instance);

    private static ModelState Clone(ModelState state)
    {
        var copy = NewState();
        foreach (var (name, tree) in state) copy[name] = new SortedDictionary<byte[], byte[]>(tree, ByteArrayComparer.Instance);
        return copy;
    }

    private static string Hex(byte[]? key)
    {
        if (key is null) return "(open)";
        string hex = Convert.ToHexString(key.AsSpan(0, Math.Min(key.Length, 24)));
        return key.Length > 24 ? $"{hex}..({key.Length} bytes)" : hex;
    }
}
