using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using StorageEngine.BTrees;
using StorageEngine.Journal;
using StorageEngine.Paging;
using StorageEngine.Transactions;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// The on-disk structures are format version 1: their sizes and field offsets are what the XML comments
/// document, and a change to either breaks every existing file.
/// </summary>
public sealed class OnDiskLayoutTests
{
    [Fact]
    public void PageHeader_is_32_bytes()
    {
        Assert.Equal(32, PageHeader.Size);
        Assert.Equal(32, Unsafe.SizeOf<PageHeader>());
        Assert.Equal(32, Marshal.SizeOf<PageHeader>());
    }

    [Fact]
    public void DataFileHeader_is_192_bytes()
    {
        Assert.Equal(192, DataFileHeader.Size);
        Assert.Equal(192, Unsafe.SizeOf<DataFileHeader>());
        Assert.Equal(192, Marshal.SizeOf<DataFileHeader>());
    }

    [Fact]
    public void JournalRecordHeader_is_192_bytes()
    {
        Assert.Equal(192, JournalRecordHeader.Size);
        Assert.Equal(192, Unsafe.SizeOf<JournalRecordHeader>());
        Assert.Equal(192, Marshal.SizeOf<JournalRecordHeader>());
    }

    [Fact]
    public void TreeHeader_is_48_bytes()
    {
        Assert.Equal(48, TreeHeader.Size);
        Assert.Equal(48, Unsafe.SizeOf<TreeHeader>());
        Assert.Equal(48, Marshal.SizeOf<TreeHeader>());
    }

    [Fact]
    public void EnvironmentState_is_128_bytes_and_fills_the_state_field_of_both_headers()
    {
        Assert.Equal(128, EnvironmentState.Size);
        Assert.Equal(128, Unsafe.SizeOf<EnvironmentState>());
        Assert.Equal(128, Marshal.SizeOf<EnvironmentState>());
        Assert.Equal(EnvironmentState.Size, DataFileHeader.StateSize);
        Assert.Equal(EnvironmentState.Size, JournalRecordHeader.StateSize);
        Assert.Equal(DataFileHeader.Size, (int)Marshal.OffsetOf<DataFileHeader>(nameof(DataFileHeader.State)) + DataFileHeader.StateSize);
        Assert.Equal(JournalRecordHeader.Size, (int)Marshal.OffsetOf<JournalRecordHeader>(nameof(JournalRecordHeader.State)) + JournalRecordHeader.StateSize);
    }

    [Theory]
    [InlineData(typeof(PageHeader), nameof(PageHeader.PageNumber), 0)]
    [InlineData(typeof(PageHeader), nameof(PageHeader.Checksum), 8)]
    [InlineData(typeof(PageHeader), nameof(PageHeader.Flags), 12)]
    [InlineData(typeof(PageHeader), nameof(PageHeader.Count), 14)]
    [InlineData(typeof(PageHeader), nameof(PageHeader.Upper), 16)]
    [InlineData(typeof(PageHeader), nameof(PageHeader.FragmentedBytes), 18)]
    [InlineData(typeof(PageHeader), nameof(PageHeader.TransactionId), 24)]
    [InlineData(typeof(EnvironmentState), nameof(EnvironmentState.HotTree), 64)]
    [InlineData(typeof(EnvironmentState), nameof(EnvironmentState.HotTreeName), 112)]
    [InlineData(typeof(DataFileHeader), nameof(DataFileHeader.Magic), 0)]
    [InlineData(typeof(DataFileHeader), nameof(DataFileHeader.FormatVersion), 8)]
    [InlineData(typeof(DataFileHeader), nameof(DataFileHeader.PageSize), 12)]
    [InlineData(typeof(DataFileHeader), nameof(DataFileHeader.Checksum), 16)]
    [InlineData(typeof(DataFileHeader), nameof(DataFileHeader.EnvironmentId), 24)]
    [InlineData(typeof(DataFileHeader), nameof(DataFileHeader.Sequence), 32)]
    [InlineData(typeof(DataFileHeader), nameof(DataFileHeader.CheckpointTransactionId), 40)]
    [InlineData(typeof(DataFileHeader), nameof(DataFileHeader.JournalFileNumber), 48)]
    [InlineData(typeof(DataFileHeader), nameof(DataFileHeader.State), 64)]
    [InlineData(typeof(JournalRecordHeader), nameof(JournalRecordHeader.Magic), 0)]
    [InlineData(typeof(JournalRecordHeader), nameof(JournalRecordHeader.EnvironmentId), 8)]
    [InlineData(typeof(JournalRecordHeader), nameof(JournalRecordHeader.TransactionId), 16)]
    [InlineData(typeof(JournalRecordHeader), nameof(JournalRecordHeader.RunCount), 24)]
    [InlineData(typeof(JournalRecordHeader), nameof(JournalRecordHeader.PageSize), 28)]
    [InlineData(typeof(JournalRecordHeader), nameof(JournalRecordHeader.TotalLength), 32)]
    [InlineData(typeof(JournalRecordHeader), nameof(JournalRecordHeader.HeaderLength), 40)]
    [InlineData(typeof(JournalRecordHeader), nameof(JournalRecordHeader.Checksum), 44)]
    [InlineData(typeof(JournalRecordHeader), nameof(JournalRecordHeader.SessionId), 48)]
    [InlineData(typeof(JournalRecordHeader), nameof(JournalRecordHeader.Alignment), 56)]
    [InlineData(typeof(JournalRecordHeader), nameof(JournalRecordHeader.State), 64)]
    [InlineData(typeof(TreeHeader), nameof(TreeHeader.RootPage), 0)]
    [InlineData(typeof(TreeHeader), nameof(TreeHeader.EntryCount), 8)]
    [InlineData(typeof(TreeHeader), nameof(TreeHeader.BranchPages), 16)]
    [InlineData(typeof(TreeHeader), nameof(TreeHeader.LeafPages), 24)]
    [InlineData(typeof(TreeHeader), nameof(TreeHeader.OverflowPages), 32)]
    [InlineData(typeof(TreeHeader), nameof(TreeHeader.Depth), 40)]
    [InlineData(typeof(TreeHeader), nameof(TreeHeader.Flags), 44)]
    [InlineData(typeof(EnvironmentState), nameof(EnvironmentState.TransactionId), 0)]
    [InlineData(typeof(EnvironmentState), nameof(EnvironmentState.PageCount), 8)]
    [InlineData(typeof(EnvironmentState), nameof(EnvironmentState.RootTree), 16)]
    public void Field_sits_at_its_documented_offset(Type type, string field, int offset)
    {
        Assert.Equal(offset, (int)Marshal.OffsetOf(type, field));
    }

    [Fact]
    public void Checksum_offset_constant_matches_the_page_header_field()
    {
        Assert.Equal(PageHeader.ChecksumOffset, (int)Marshal.OffsetOf<PageHeader>(nameof(PageHeader.Checksum)));
    }

    [Fact]
    public void Magic_numbers_spell_their_ascii_names_in_file_byte_order()
    {
        Assert.Equal("SEDBHDR1"u8.ToArray(), BitConverter.GetBytes(DataFileHeader.MagicValue));
        Assert.Equal("SEJRNL03"u8.ToArray(), BitConverter.GetBytes(JournalRecordHeader.MagicValue));
        Assert.Equal("SEJRNL02"u8.ToArray(), BitConverter.GetBytes(JournalRecordHeader.FormatTwoMagic));
        Assert.Equal("SEJRNL04"u8.ToArray(), BitConverter.GetBytes(JournalRecordHeader.FormatFourMagic));
    }

    [Fact]
    public void Slotted_page_entry_headers_have_their_documented_sizes()
    {
        // leaf: u16 keyLength, u8 kind, u8 reserved, u32 valueLength; branch: u16 keyLength, u64 child
        Assert.Equal(8, Node.LeafEntryHeaderSize);
        Assert.Equal(10, Node.BranchEntryHeaderSize);
        Assert.Equal(12, Node.OverflowReferenceSize);
        Assert.Equal(2, Node.SlotSize);
        Assert.Equal(24, JournalRecordHeader.RunEntrySize);
    }

    [Fact]
    public void Int64Key_encoding_is_big_endian_with_the_sign_bit_flipped()
    {
        var bytes = new byte[Int64Key.Size];
        Int64Key.Write(bytes, 1);
        Assert.Equal(new byte[] { 0x80, 0, 0, 0, 0, 0, 0, 1 }, bytes);
        Int64Key.Write(bytes, -1);
        Assert.Equal(new byte[] { 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF }, bytes);
        Int64Key.Write(bytes, long.MinValue);
        Assert.Equal(new byte[8], bytes);
    }
}
