using System.Text;

namespace StorageEngine.Cluster.Tests.Linearizability;

/// <summary>
/// A Wing-Gong linearizability checker with Lowe's memoization, for histories of registers that start absent.
/// Each key is checked alone (linearizability is local). It searches for an order of the operations that
/// respects real time (an operation that completed before another was invoked comes first) in which every read
/// returns the last value written; writes whose outcome is unknown may be placed anywhere after their invocation
/// or left out.
/// </summary>
internal static class RegisterChecker
{
    /// <summary>Null when the history is linearizable, else which key failed and its operations.</summary>
    public static string? Check(IEnumerable<RegisterOperation> history)
    {
        string? failure = null;
        // The search recurses once per operation: give it a deep stack.
        var thread = new Thread(() =>
        {
            foreach (var group in history.GroupBy(o => o.Key))
            {
                var operations = group.OrderBy(o => o.Invoked).ToList();
                if (!new Search(operations).Run())
                {
                    failure = $"the operations on {group.Key} are not linearizable:\n" + string.Join("\n", operations);
                    return;
                }
            }
        }, 256 << 20);
        thread.Start();
        thread.Join();
        return failure;
    }

    private sealed class Search(List<RegisterOperation> operations)
    {
        private readonly bool[] _done = new bool[operations.Count];
        private readonly HashSet<string> _seen = [];

        public bool Run() => Step(null, operations.Count(o => !o.IsPending));

        private bool Step(string? value, int requiredLeft)
        {
            if (requiredLeft == 0) return true;
            if (!_seen.Add(StateKey(value))) return false;
            long firstCompletion = long.MaxValue;
            for (int i = 0; i < operations.Count; i++)
                if (!_done[i]) firstCompletion = Math.Min(firstCompletion, operations[i].Completed);
            for (int i = 0; i < operations.Count && operations[i].Invoked < firstCompletion; i++)
            {
                if (_done[i]) continue;
                var operation = operations[i];
                if (!operation.IsWrite && operation.Value != value) continue;
                _done[i] = true;
                if (Step(operation.IsWrite ? operation.Value : value, requiredLeft - (operation.IsPending ? 0 : 1))) return true;
                _done[i] = false;
            }
            return false;
        }

        private string StateKey(string? value)
        {
            var key = new StringBuilder(_done.Length / 4 + 16);
            for (int i = 0; i < _done.Length; i += 4)
            {
                int nibble = 0;
                for (int j = 0; j < 4 && i + j < _done.Length; j++)
                    if (_done[i + j]) nibble |= 1 << j;
                key.Append("0123456789abcdef"[nibble]);
            }
            return key.Append('|').Append(value ?? "\0").ToString();
        }
    }
}
