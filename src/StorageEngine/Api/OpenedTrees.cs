namespace StorageEngine;

/// <summary>
/// The trees a transaction opened, enumerated without allocating: a commit walks them twice, and an
/// <see cref="IEnumerable{T}"/> over a dictionary's values or a one-element collection allocated each time.
/// </summary>
internal readonly struct OpenedTrees
{
    private readonly Dictionary<string, Tree>? _trees;
    private readonly Tree? _single;

    /// <summary>Either the transaction's dictionary of trees or, before it made one, its only tree (or neither).</summary>
    public OpenedTrees(Dictionary<string, Tree>? trees, Tree? single)
    {
        _trees = trees;
        _single = trees is null ? single : null;
    }

    public Enumerator GetEnumerator() => new(_trees, _single);

    /// <summary>Walks the dictionary's values, or yields the single tree once.</summary>
    public struct Enumerator
    {
        private Dictionary<string, Tree>.ValueCollection.Enumerator _values;
        private readonly bool _fromDictionary;
        private Tree? _single;

        internal Enumerator(Dictionary<string, Tree>? trees, Tree? single)
        {
            _fromDictionary = trees is not null;
            _values = trees is not null ? trees.Values.GetEnumerator() : default;
            _single = single;
            Current = null!;
        }

        public Tree Current { get; private set; }

        public bool MoveNext()
        {
            if (_fromDictionary)
            {
                if (!_values.MoveNext()) return false;
                Current = _values.Current;
                return true;
            }
            if (_single is null) return false;
            Current = _single;
            _single = null;
            return true;
        }
    }
}
