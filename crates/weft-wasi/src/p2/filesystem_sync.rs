//! The synchronous `wasi:filesystem/types` host functions of
//! [`super::add_to_linker_sync`] (Wasmtime 48's `host/filesystem/sync.rs`):
//! each converts its arguments to the async bindings' types, runs its
//! async counterpart of `filesystem.rs` to its end on the calling thread
//! ([`in_tokio`]) and converts the result back. Without
//! `allow_blocking_current_thread` the disk work runs on weft-wasi's own
//! runtime's blocking pool while this thread is parked, so it never
//! waits for the thread it blocks, even inside a current-thread runtime.

use super::bindings::sync::wasi::filesystem::types as sync;
use super::bindings::wasi::filesystem::types as asy;
use super::filesystem::{FsError, FsResult, ReaddirIterator};
use super::io::{DynInputStream, DynOutputStream, IoError};
use crate::filesystem::WasiFilesystemCtxView;
use crate::runtime::in_tokio;
use weft::component::Resource;

use crate::p2::Descriptor;

/// Converts between the two flavours' copies of a WIT enum.
macro_rules! convert_enum {
    ($from:ty => $to:ty { $($case:ident),* $(,)? }) => {
        impl From<$from> for $to {
            fn from(v: $from) -> $to {
                match v {
                    $(<$from>::$case => <$to>::$case,)*
                }
            }
        }
    };
}

/// Converts between the two flavours' copies of a WIT flags type.
macro_rules! convert_flags {
    ($from:ty => $to:ty { $($flag:ident),* $(,)? }) => {
        impl From<$from> for $to {
            fn from(v: $from) -> $to {
                let mut out = <$to>::empty();
                $(
                    if v.contains(<$from>::$flag) {
                        out |= <$to>::$flag;
                    }
                )*
                out
            }
        }
    };
}

convert_enum!(asy::ErrorCode => sync::ErrorCode {
    Access, WouldBlock, Already, BadDescriptor, Busy, Deadlock, Quota, Exist, FileTooLarge,
    IllegalByteSequence, InProgress, Interrupted, Invalid, Io, IsDirectory, Loop, TooManyLinks,
    MessageSize, NameTooLong, NoDevice, NoEntry, NoLock, InsufficientMemory, InsufficientSpace,
    NotDirectory, NotEmpty, NotRecoverable, Unsupported, NoTty, NoSuchDevice, Overflow,
    NotPermitted, Pipe, ReadOnly, InvalidSeek, TextFileBusy, CrossDevice,
});
convert_enum!(asy::DescriptorType => sync::DescriptorType {
    Unknown, BlockDevice, CharacterDevice, Directory, Fifo, SymbolicLink, RegularFile, Socket,
});
convert_enum!(sync::Advice => asy::Advice { Normal, Sequential, Random, WillNeed, DontNeed, NoReuse });
convert_flags!(asy::DescriptorFlags => sync::DescriptorFlags {
    READ, WRITE, FILE_INTEGRITY_SYNC, DATA_INTEGRITY_SYNC, REQUESTED_WRITE_SYNC, MUTATE_DIRECTORY,
});
convert_flags!(sync::DescriptorFlags => asy::DescriptorFlags {
    READ, WRITE, FILE_INTEGRITY_SYNC, DATA_INTEGRITY_SYNC, REQUESTED_WRITE_SYNC, MUTATE_DIRECTORY,
});
convert_flags!(sync::PathFlags => asy::PathFlags { SYMLINK_FOLLOW });
convert_flags!(sync::OpenFlags => asy::OpenFlags { CREATE, DIRECTORY, EXCLUSIVE, TRUNCATE });

impl From<asy::DescriptorStat> for sync::DescriptorStat {
    fn from(s: asy::DescriptorStat) -> sync::DescriptorStat {
        sync::DescriptorStat {
            type_: s.type_.into(),
            link_count: s.link_count,
            size: s.size,
            data_access_timestamp: s.data_access_timestamp,
            data_modification_timestamp: s.data_modification_timestamp,
            status_change_timestamp: s.status_change_timestamp,
        }
    }
}

impl From<sync::NewTimestamp> for asy::NewTimestamp {
    fn from(t: sync::NewTimestamp) -> asy::NewTimestamp {
        match t {
            sync::NewTimestamp::NoChange => asy::NewTimestamp::NoChange,
            sync::NewTimestamp::Now => asy::NewTimestamp::Now,
            sync::NewTimestamp::Timestamp(d) => asy::NewTimestamp::Timestamp(d),
        }
    }
}

impl From<asy::DirectoryEntry> for sync::DirectoryEntry {
    fn from(e: asy::DirectoryEntry) -> sync::DirectoryEntry {
        sync::DirectoryEntry {
            type_: e.type_.into(),
            name: e.name,
        }
    }
}

impl From<asy::MetadataHashValue> for sync::MetadataHashValue {
    fn from(h: asy::MetadataHashValue) -> sync::MetadataHashValue {
        sync::MetadataHashValue {
            lower: h.lower,
            upper: h.upper,
        }
    }
}

impl sync::Host for WasiFilesystemCtxView<'_> {
    fn convert_error_code(&mut self, err: FsError) -> anyhow::Result<sync::ErrorCode> {
        Ok(asy::Host::convert_error_code(self, err)?.into())
    }
    fn filesystem_error_code(&mut self, err: Resource<IoError>) -> anyhow::Result<Option<sync::ErrorCode>> {
        Ok(asy::Host::filesystem_error_code(self, err)?.map(Into::into))
    }
}

impl sync::HostDescriptor for WasiFilesystemCtxView<'_> {
    fn read_via_stream(&mut self, self_: Resource<Descriptor>, offset: u64) -> FsResult<Resource<DynInputStream>> {
        asy::HostDescriptor::read_via_stream(self, self_, offset)
    }
    fn write_via_stream(&mut self, self_: Resource<Descriptor>, offset: u64) -> FsResult<Resource<DynOutputStream>> {
        asy::HostDescriptor::write_via_stream(self, self_, offset)
    }
    fn append_via_stream(&mut self, self_: Resource<Descriptor>) -> FsResult<Resource<DynOutputStream>> {
        asy::HostDescriptor::append_via_stream(self, self_)
    }
    fn advise(&mut self, self_: Resource<Descriptor>, offset: u64, length: u64, advice: sync::Advice) -> FsResult<()> {
        in_tokio(asy::HostDescriptor::advise(self, self_, offset, length, advice.into()))
    }
    fn sync_data(&mut self, self_: Resource<Descriptor>) -> FsResult<()> {
        in_tokio(asy::HostDescriptor::sync_data(self, self_))
    }
    fn get_flags(&mut self, self_: Resource<Descriptor>) -> FsResult<sync::DescriptorFlags> {
        Ok(in_tokio(asy::HostDescriptor::get_flags(self, self_))?.into())
    }
    fn get_type(&mut self, self_: Resource<Descriptor>) -> FsResult<sync::DescriptorType> {
        Ok(in_tokio(asy::HostDescriptor::get_type(self, self_))?.into())
    }
    fn set_size(&mut self, self_: Resource<Descriptor>, size: u64) -> FsResult<()> {
        in_tokio(asy::HostDescriptor::set_size(self, self_, size))
    }
    fn set_times(
        &mut self,
        self_: Resource<Descriptor>,
        data_access_timestamp: sync::NewTimestamp,
        data_modification_timestamp: sync::NewTimestamp,
    ) -> FsResult<()> {
        in_tokio(asy::HostDescriptor::set_times(
            self,
            self_,
            data_access_timestamp.into(),
            data_modification_timestamp.into(),
        ))
    }
    fn read(&mut self, self_: Resource<Descriptor>, length: u64, offset: u64) -> FsResult<(Vec<u8>, bool)> {
        in_tokio(asy::HostDescriptor::read(self, self_, length, offset))
    }
    fn write(&mut self, self_: Resource<Descriptor>, buffer: Vec<u8>, offset: u64) -> FsResult<u64> {
        in_tokio(asy::HostDescriptor::write(self, self_, buffer, offset))
    }
    fn read_directory(&mut self, self_: Resource<Descriptor>) -> FsResult<Resource<ReaddirIterator>> {
        in_tokio(asy::HostDescriptor::read_directory(self, self_))
    }
    fn sync(&mut self, self_: Resource<Descriptor>) -> FsResult<()> {
        in_tokio(asy::HostDescriptor::sync(self, self_))
    }
    fn create_directory_at(&mut self, self_: Resource<Descriptor>, path: String) -> FsResult<()> {
        in_tokio(asy::HostDescriptor::create_directory_at(self, self_, path))
    }
    fn stat(&mut self, self_: Resource<Descriptor>) -> FsResult<sync::DescriptorStat> {
        Ok(in_tokio(asy::HostDescriptor::stat(self, self_))?.into())
    }
    fn stat_at(
        &mut self,
        self_: Resource<Descriptor>,
        path_flags: sync::PathFlags,
        path: String,
    ) -> FsResult<sync::DescriptorStat> {
        Ok(in_tokio(asy::HostDescriptor::stat_at(self, self_, path_flags.into(), path))?.into())
    }
    fn set_times_at(
        &mut self,
        self_: Resource<Descriptor>,
        path_flags: sync::PathFlags,
        path: String,
        data_access_timestamp: sync::NewTimestamp,
        data_modification_timestamp: sync::NewTimestamp,
    ) -> FsResult<()> {
        in_tokio(asy::HostDescriptor::set_times_at(
            self,
            self_,
            path_flags.into(),
            path,
            data_access_timestamp.into(),
            data_modification_timestamp.into(),
        ))
    }
    fn link_at(
        &mut self,
        self_: Resource<Descriptor>,
        old_path_flags: sync::PathFlags,
        old_path: String,
        new_descriptor: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        in_tokio(asy::HostDescriptor::link_at(
            self,
            self_,
            old_path_flags.into(),
            old_path,
            new_descriptor,
            new_path,
        ))
    }
    fn open_at(
        &mut self,
        self_: Resource<Descriptor>,
        path_flags: sync::PathFlags,
        path: String,
        open_flags: sync::OpenFlags,
        flags: sync::DescriptorFlags,
    ) -> FsResult<Resource<Descriptor>> {
        in_tokio(asy::HostDescriptor::open_at(
            self,
            self_,
            path_flags.into(),
            path,
            open_flags.into(),
            flags.into(),
        ))
    }
    fn readlink_at(&mut self, self_: Resource<Descriptor>, path: String) -> FsResult<String> {
        in_tokio(asy::HostDescriptor::readlink_at(self, self_, path))
    }
    fn remove_directory_at(&mut self, self_: Resource<Descriptor>, path: String) -> FsResult<()> {
        in_tokio(asy::HostDescriptor::remove_directory_at(self, self_, path))
    }
    fn rename_at(
        &mut self,
        self_: Resource<Descriptor>,
        old_path: String,
        new_descriptor: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        in_tokio(asy::HostDescriptor::rename_at(
            self,
            self_,
            old_path,
            new_descriptor,
            new_path,
        ))
    }
    fn symlink_at(&mut self, self_: Resource<Descriptor>, old_path: String, new_path: String) -> FsResult<()> {
        in_tokio(asy::HostDescriptor::symlink_at(self, self_, old_path, new_path))
    }
    fn unlink_file_at(&mut self, self_: Resource<Descriptor>, path: String) -> FsResult<()> {
        in_tokio(asy::HostDescriptor::unlink_file_at(self, self_, path))
    }
    fn is_same_object(&mut self, self_: Resource<Descriptor>, other: Resource<Descriptor>) -> anyhow::Result<bool> {
        in_tokio(asy::HostDescriptor::is_same_object(self, self_, other))
    }
    fn metadata_hash(&mut self, self_: Resource<Descriptor>) -> FsResult<sync::MetadataHashValue> {
        Ok(in_tokio(asy::HostDescriptor::metadata_hash(self, self_))?.into())
    }
    fn metadata_hash_at(
        &mut self,
        self_: Resource<Descriptor>,
        path_flags: sync::PathFlags,
        path: String,
    ) -> FsResult<sync::MetadataHashValue> {
        Ok(in_tokio(asy::HostDescriptor::metadata_hash_at(
            self,
            self_,
            path_flags.into(),
            path,
        ))?
        .into())
    }
    fn drop(&mut self, rep: Resource<Descriptor>) -> anyhow::Result<()> {
        asy::HostDescriptor::drop(self, rep)
    }
}

impl sync::HostDirectoryEntryStream for WasiFilesystemCtxView<'_> {
    fn read_directory_entry(&mut self, self_: Resource<ReaddirIterator>) -> FsResult<Option<sync::DirectoryEntry>> {
        Ok(in_tokio(asy::HostDirectoryEntryStream::read_directory_entry(self, self_))?.map(Into::into))
    }
    fn drop(&mut self, rep: Resource<ReaddirIterator>) -> anyhow::Result<()> {
        asy::HostDirectoryEntryStream::drop(self, rep)
    }
}
