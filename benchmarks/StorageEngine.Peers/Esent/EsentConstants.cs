namespace StorageEngine.Peers.Esent;

/// <summary>The esent.h constants the adapter uses (parameter ids, option bits, error codes).</summary>
internal static class EsentConstants
{
    // System parameters (JET_param*).
    internal const uint ParamSystemPath = 0;
    internal const uint ParamTempPath = 1;
    internal const uint ParamLogFilePath = 2;
    internal const uint ParamMaxSessions = 5;
    internal const uint ParamMaxOpenTables = 6;
    internal const uint ParamMaxCursors = 8;
    internal const uint ParamMaxVerPages = 9;
    internal const uint ParamLogFileSize = 11;
    internal const uint ParamCircularLog = 17;
    internal const uint ParamNoInformationEvent = 50;
    internal const uint ParamPreferredVerPages = 63;
    internal const uint ParamCreatePathIfNotExist = 100;
    internal const uint ParamVerPageSize = 128;

    // Commit, transaction and term options.
    internal const uint CommitLazyFlush = 0x1;
    internal const uint TransactionReadOnly = 0x1;
    internal const uint TermComplete = 0x1;

    // Columns and indexes.
    internal const uint ColumnTypeLongBinary = 11;
    internal const uint ColumnInfo = 0;
    internal const uint IndexUnique = 0x1;
    internal const uint IndexPrimary = 0x2;
    internal const uint IndexDisallowNull = 0x4;
    internal const uint IndexKeyMost = 0x8000;
    internal const uint IndexDisallowTruncation = 0x10000;

    // Keys, seeks, moves and index ranges.
    internal const uint NewKey = 0x1;
    internal const uint SeekEqual = 0x1;
    internal const uint SeekLessOrEqual = 0x4;
    internal const uint SeekGreaterOrEqual = 0x8;
    internal const int MoveFirst = int.MinValue;
    internal const int MoveLast = int.MaxValue;
    internal const int MoveNext = 1;
    internal const int MovePrevious = -1;

    // Updates.
    internal const uint PrepareInsert = 0;
    internal const uint PrepareReplace = 2;
    internal const uint PrepareCancel = 3;
    internal const uint SetZeroLength = 0x20;

    // Results.
    internal const int WarningColumnNull = 1004;
    internal const int WarningBufferTruncated = 1006;
    internal const int ErrorRecordNotFound = -1601;
    internal const int ErrorNoCurrentRecord = -1603;
    internal const int ErrorAlreadyInitialized = -1030;
}
