namespace StorageEngine;

/// <summary>
/// The names of the public operations on transactions, trees and cursors, as their refusals and a failed
/// transaction's messages give them: constants, so that naming the operation costs nothing on the hot path.
/// </summary>
internal static class Operations
{
    public const string TryOpenTree = "Transaction.TryOpenTree";
    public const string GetTreeNames = "Transaction.GetTreeNames";
    public const string CreateTree = "WriteTransaction.CreateTree";
    public const string DeleteTree = "WriteTransaction.DeleteTree";
    public const string Commit = "WriteTransaction.Commit";
    public const string Count = "Tree.Count";
    public const string GetStatistics = "Tree.GetStatistics";
    public const string TryGet = "Tree.TryGet";
    public const string Put = "Tree.Put";
    public const string Delete = "Tree.Delete";
    public const string CreateCursor = "Tree.CreateCursor";
    public const string GetMany = "Tree.GetMany";
    public const string Apply = "Tree.Apply";
    public const string GetLeafDirectory = "Tree.GetLeafDirectory";
    public const string Salvage = "Tree.Salvage";
    public const string CursorFirst = "Cursor.First";
    public const string CursorLast = "Cursor.Last";
    public const string CursorSeek = "Cursor.Seek";
    public const string CursorSeekAtOrBefore = "Cursor.SeekAtOrBefore";
    public const string CursorNext = "Cursor.Next";
    public const string CursorPrevious = "Cursor.Previous";
    public const string CursorKey = "Cursor.Key";
    public const string CursorValue = "Cursor.Value";
}
