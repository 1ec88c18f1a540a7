using System.Runtime.InteropServices;

namespace StorageEngine.Peers.Esent;

/// <summary>
/// The few esent.dll entry points a key-value adapter needs, declared from esent.h (Windows SDK). Every call
/// returns a JET_ERR: 0 is success, a positive value a warning, a negative value an error. The wide-character
/// variants are used wherever a string is passed. Handles (instance, session, table) are pointer-sized.
/// </summary>
internal static unsafe partial class EsentNative
{
    private const string Library = "esent.dll";

    [LibraryImport(Library, EntryPoint = "JetCreateInstance2W", StringMarshalling = StringMarshalling.Utf16)]
    internal static partial int JetCreateInstance2(out nint instance, string instanceName, string displayName, uint grbit);

    [LibraryImport(Library, EntryPoint = "JetSetSystemParameterW", StringMarshalling = StringMarshalling.Utf16)]
    internal static partial int JetSetSystemParameter(nint* instance, nint sesid, uint paramId, nint value, string? text);

    [LibraryImport(Library, EntryPoint = "JetGetSystemParameterW")]
    internal static partial int JetGetSystemParameter(nint instance, nint sesid, uint paramId, ref nint value, char* text, uint textBytes);

    [LibraryImport(Library, EntryPoint = "JetInit")]
    internal static partial int JetInit(ref nint instance);

    [LibraryImport(Library, EntryPoint = "JetTerm2")]
    internal static partial int JetTerm2(nint instance, uint grbit);

    [LibraryImport(Library, EntryPoint = "JetBeginSessionW", StringMarshalling = StringMarshalling.Utf16)]
    internal static partial int JetBeginSession(nint instance, out nint sesid, string? userName, string? password);

    [LibraryImport(Library, EntryPoint = "JetEndSession")]
    internal static partial int JetEndSession(nint sesid, uint grbit);

    [LibraryImport(Library, EntryPoint = "JetCreateDatabaseW", StringMarshalling = StringMarshalling.Utf16)]
    internal static partial int JetCreateDatabase(nint sesid, string fileName, string? connect, out uint dbid, uint grbit);

    [LibraryImport(Library, EntryPoint = "JetAttachDatabaseW", StringMarshalling = StringMarshalling.Utf16)]
    internal static partial int JetAttachDatabase(nint sesid, string fileName, uint grbit);

    [LibraryImport(Library, EntryPoint = "JetOpenDatabaseW", StringMarshalling = StringMarshalling.Utf16)]
    internal static partial int JetOpenDatabase(nint sesid, string fileName, string? connect, out uint dbid, uint grbit);

    [LibraryImport(Library, EntryPoint = "JetCloseDatabase")]
    internal static partial int JetCloseDatabase(nint sesid, uint dbid, uint grbit);

    [LibraryImport(Library, EntryPoint = "JetCreateTableW", StringMarshalling = StringMarshalling.Utf16)]
    internal static partial int JetCreateTable(nint sesid, uint dbid, string tableName, uint pages, uint density, out nint tableid);

    [LibraryImport(Library, EntryPoint = "JetAddColumnW", StringMarshalling = StringMarshalling.Utf16)]
    internal static partial int JetAddColumn(nint sesid, nint tableid, string columnName, in ColumnDefinition definition, void* defaultValue, uint defaultBytes, out uint columnid);

    [LibraryImport(Library, EntryPoint = "JetCreateIndex2W")]
    internal static partial int JetCreateIndex2(nint sesid, nint tableid, IndexCreate* indexes, uint count);

    [LibraryImport(Library, EntryPoint = "JetGetTableColumnInfoW", StringMarshalling = StringMarshalling.Utf16)]
    internal static partial int JetGetTableColumnInfo(nint sesid, nint tableid, string columnName, ref ColumnDefinition result, uint resultBytes, uint infoLevel);

    [LibraryImport(Library, EntryPoint = "JetOpenTableW", StringMarshalling = StringMarshalling.Utf16)]
    internal static partial int JetOpenTable(nint sesid, uint dbid, string tableName, void* parameters, uint parameterBytes, uint grbit, out nint tableid);

    [LibraryImport(Library, EntryPoint = "JetCloseTable")]
    internal static partial int JetCloseTable(nint sesid, nint tableid);

    [LibraryImport(Library, EntryPoint = "JetBeginTransaction2")]
    internal static partial int JetBeginTransaction2(nint sesid, uint grbit);

    [LibraryImport(Library, EntryPoint = "JetCommitTransaction")]
    internal static partial int JetCommitTransaction(nint sesid, uint grbit);

    [LibraryImport(Library, EntryPoint = "JetRollback")]
    internal static partial int JetRollback(nint sesid, uint grbit);

    [LibraryImport(Library, EntryPoint = "JetPrepareUpdate")]
    internal static partial int JetPrepareUpdate(nint sesid, nint tableid, uint prep);

    [LibraryImport(Library, EntryPoint = "JetSetColumn")]
    internal static partial int JetSetColumn(nint sesid, nint tableid, uint columnid, void* data, uint dataBytes, uint grbit, void* setInfo);

    [LibraryImport(Library, EntryPoint = "JetUpdate")]
    internal static partial int JetUpdate(nint sesid, nint tableid, void* bookmark, uint bookmarkBytes, out uint bookmarkActual);

    [LibraryImport(Library, EntryPoint = "JetDelete")]
    internal static partial int JetDelete(nint sesid, nint tableid);

    [LibraryImport(Library, EntryPoint = "JetMakeKey")]
    internal static partial int JetMakeKey(nint sesid, nint tableid, void* data, uint dataBytes, uint grbit);

    [LibraryImport(Library, EntryPoint = "JetSeek")]
    internal static partial int JetSeek(nint sesid, nint tableid, uint grbit);

    [LibraryImport(Library, EntryPoint = "JetMove")]
    internal static partial int JetMove(nint sesid, nint tableid, int rows, uint grbit);

    [LibraryImport(Library, EntryPoint = "JetSetIndexRange")]
    internal static partial int JetSetIndexRange(nint sesid, nint tableid, uint grbit);

    [LibraryImport(Library, EntryPoint = "JetRetrieveColumn")]
    internal static partial int JetRetrieveColumn(nint sesid, nint tableid, uint columnid, void* data, uint dataBytes, out uint actualBytes, uint grbit, void* retInfo);

    /// <summary>JET_COLUMNDEF.</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct ColumnDefinition
    {
        public uint StructBytes;
        public uint ColumnId;
        public uint ColumnType;
        public ushort Country;
        public ushort LanguageId;
        public ushort CodePage;
        public ushort Collate;
        public uint MaxBytes;
        public uint Grbit;
    }

    /// <summary>JET_INDEXCREATE_W as of Windows Vista (with <c>cbKeyMost</c>); the unions are pointer-sized.</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct IndexCreate
    {
        public uint StructBytes;
        public char* IndexName;
        public char* KeyDescription;
        public uint KeyDescriptionBytes;
        public uint Grbit;
        public uint Density;
        public nint LcidOrUnicodeIndex;
        public nint VarSegMacOrTupleLimits;
        public nint ConditionalColumns;
        public uint ConditionalColumnCount;
        public int Error;
        public uint KeyMostBytes;
    }
}
