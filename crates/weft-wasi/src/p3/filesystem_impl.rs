//! `wasi:filesystem@0.3` over WASI 0.2's implementation: the same
//! descriptors (a 0.3 descriptor is a [`crate::p2::Descriptor`] in the
//! same table), so the same sandbox (every path resolved by `cap-std`
//! inside a preopen's handle). Each function converts its arguments,
//! calls the 0.2 function and converts the result; the stream functions
//! wrap 0.2's file reads, writes and directory listing in component-model
//! streams, with the future of their result.
//!
//! The work of a call runs outside the store, on a thread of weft-wasi's
//! blocking pool unless the context allows blocking the calling thread
//! (as the 0.2 functions), so a slow disk does not stop the guest's other
//! tasks. The file streams read and write a job at a time there, and
//! `read-directory` lists a batch of entries as the guest reads them.

use super::bindings::wasi::clocks::system_clock::Instant;
use super::bindings::wasi::filesystem::preopens;
use super::bindings::wasi::filesystem::types::{
    self as t, Advice, DescriptorFlags, DescriptorStat, DescriptorType, DirectoryEntry, ErrorCode, Filesize,
    MetadataHashValue, NewTimestamp, OpenFlags, PathFlags,
};
use super::filesystem::{FilesystemError, FilesystemResult};
use super::slot::ResultSlot;
use crate::filesystem::{WasiFilesystem, WasiFilesystemCtxView};
use crate::p2::bindings::wasi::clocks::wall_clock::Datetime;
use crate::p2::bindings::wasi::filesystem::types as p2t;
use crate::p2::file_streams::{DirLister, FileReader, FileWriter, FILE_BUDGET};
use crate::p2::filesystem::{entry_of, run_blocking, Work};
use crate::p2::{Descriptor, FsError, FsResult};
use std::pin::Pin;
use std::task::{Context, Poll};
use weft::component::{
    Access, Accessor, Destination, FutureReader, Resource, Source, StreamConsumer, StreamProducer, StreamReader,
    StreamResult, VecBuffer,
};
use weft::StoreContextMut;

/// WASI 0.2's error code as 0.3's (0.3 has no `would-block`).
fn code(c: p2t::ErrorCode) -> ErrorCode {
    use p2t::ErrorCode as E;
    match c {
        E::Access => ErrorCode::Access,
        E::WouldBlock => ErrorCode::Other(Some("would-block".to_string())),
        E::Already => ErrorCode::Already,
        E::BadDescriptor => ErrorCode::BadDescriptor,
        E::Busy => ErrorCode::Busy,
        E::Deadlock => ErrorCode::Deadlock,
        E::Quota => ErrorCode::Quota,
        E::Exist => ErrorCode::Exist,
        E::FileTooLarge => ErrorCode::FileTooLarge,
        E::IllegalByteSequence => ErrorCode::IllegalByteSequence,
        E::InProgress => ErrorCode::InProgress,
        E::Interrupted => ErrorCode::Interrupted,
        E::Invalid => ErrorCode::Invalid,
        E::Io => ErrorCode::Io,
        E::IsDirectory => ErrorCode::IsDirectory,
        E::Loop => ErrorCode::Loop,
        E::TooManyLinks => ErrorCode::TooManyLinks,
        E::MessageSize => ErrorCode::MessageSize,
        E::NameTooLong => ErrorCode::NameTooLong,
        E::NoDevice => ErrorCode::NoDevice,
        E::NoEntry => ErrorCode::NoEntry,
        E::NoLock => ErrorCode::NoLock,
        E::InsufficientMemory => ErrorCode::InsufficientMemory,
        E::InsufficientSpace => ErrorCode::InsufficientSpace,
        E::NotDirectory => ErrorCode::NotDirectory,
        E::NotEmpty => ErrorCode::NotEmpty,
        E::NotRecoverable => ErrorCode::NotRecoverable,
        E::Unsupported => ErrorCode::Unsupported,
        E::NoTty => ErrorCode::NoTty,
        E::NoSuchDevice => ErrorCode::NoSuchDevice,
        E::Overflow => ErrorCode::Overflow,
        E::NotPermitted => ErrorCode::NotPermitted,
        E::Pipe => ErrorCode::Pipe,
        E::ReadOnly => ErrorCode::ReadOnly,
        E::InvalidSeek => ErrorCode::InvalidSeek,
        E::TextFileBusy => ErrorCode::TextFileBusy,
        E::CrossDevice => ErrorCode::CrossDevice,
    }
}

/// A 0.2 error (an error code or a trap) as a 0.3 one.
fn err(e: FsError) -> FilesystemError {
    match e.downcast() {
        Ok(c) => FilesystemError::from(code(c)),
        Err(trap) => FilesystemError::trap(trap),
    }
}

fn dtype(d: p2t::DescriptorType) -> DescriptorType {
    use p2t::DescriptorType as D;
    match d {
        D::Unknown => DescriptorType::Other(None),
        D::BlockDevice => DescriptorType::BlockDevice,
        D::CharacterDevice => DescriptorType::CharacterDevice,
        D::Directory => DescriptorType::Directory,
        D::Fifo => DescriptorType::Fifo,
        D::SymbolicLink => DescriptorType::SymbolicLink,
        D::RegularFile => DescriptorType::RegularFile,
        D::Socket => DescriptorType::Socket,
    }
}

fn instant(d: Datetime) -> Instant {
    Instant {
        seconds: i64::try_from(d.seconds).unwrap_or(i64::MAX),
        nanoseconds: d.nanoseconds,
    }
}

fn stat(s: p2t::DescriptorStat) -> DescriptorStat {
    DescriptorStat {
        type_: dtype(s.type_),
        link_count: s.link_count,
        size: s.size,
        data_access_timestamp: s.data_access_timestamp.map(instant),
        data_modification_timestamp: s.data_modification_timestamp.map(instant),
        status_change_timestamp: s.status_change_timestamp.map(instant),
    }
}

/// A 0.3 timestamp as 0.2's: a time before 1970 is `invalid`.
fn timestamp(n: NewTimestamp) -> FilesystemResult<p2t::NewTimestamp> {
    Ok(match n {
        NewTimestamp::NoChange => p2t::NewTimestamp::NoChange,
        NewTimestamp::Now => p2t::NewTimestamp::Now,
        NewTimestamp::Timestamp(i) => p2t::NewTimestamp::Timestamp(Datetime {
            seconds: u64::try_from(i.seconds).map_err(|_| FilesystemError::from(ErrorCode::Invalid))?,
            nanoseconds: i.nanoseconds,
        }),
    })
}

fn path_flags(f: PathFlags) -> p2t::PathFlags {
    if f.contains(PathFlags::SYMLINK_FOLLOW) {
        p2t::PathFlags::SYMLINK_FOLLOW
    } else {
        p2t::PathFlags::empty()
    }
}

fn open_flags(f: OpenFlags) -> p2t::OpenFlags {
    let mut o = p2t::OpenFlags::empty();
    for (a, b) in [
        (OpenFlags::CREATE, p2t::OpenFlags::CREATE),
        (OpenFlags::DIRECTORY, p2t::OpenFlags::DIRECTORY),
        (OpenFlags::EXCLUSIVE, p2t::OpenFlags::EXCLUSIVE),
        (OpenFlags::TRUNCATE, p2t::OpenFlags::TRUNCATE),
    ] {
        if f.contains(a) {
            o |= b;
        }
    }
    o
}

/// The pairs of equal descriptor flags of 0.3 and 0.2.
fn flag_pairs() -> [(DescriptorFlags, p2t::DescriptorFlags); 6] {
    [
        (DescriptorFlags::READ, p2t::DescriptorFlags::READ),
        (DescriptorFlags::WRITE, p2t::DescriptorFlags::WRITE),
        (
            DescriptorFlags::FILE_INTEGRITY_SYNC,
            p2t::DescriptorFlags::FILE_INTEGRITY_SYNC,
        ),
        (
            DescriptorFlags::DATA_INTEGRITY_SYNC,
            p2t::DescriptorFlags::DATA_INTEGRITY_SYNC,
        ),
        (
            DescriptorFlags::REQUESTED_WRITE_SYNC,
            p2t::DescriptorFlags::REQUESTED_WRITE_SYNC,
        ),
        (
            DescriptorFlags::MUTATE_DIRECTORY,
            p2t::DescriptorFlags::MUTATE_DIRECTORY,
        ),
    ]
}

fn flags_to_p2(f: DescriptorFlags) -> p2t::DescriptorFlags {
    let mut o = p2t::DescriptorFlags::empty();
    for (a, b) in flag_pairs() {
        if f.contains(a) {
            o |= b;
        }
    }
    o
}

fn flags_from_p2(f: p2t::DescriptorFlags) -> DescriptorFlags {
    let mut o = DescriptorFlags::empty();
    for (a, b) in flag_pairs() {
        if f.contains(b) {
            o |= a;
        }
    }
    o
}

fn advice(a: Advice) -> p2t::Advice {
    match a {
        Advice::Normal => p2t::Advice::Normal,
        Advice::Sequential => p2t::Advice::Sequential,
        Advice::Random => p2t::Advice::Random,
        Advice::WillNeed => p2t::Advice::WillNeed,
        Advice::DontNeed => p2t::Advice::DontNeed,
        Advice::NoReuse => p2t::Advice::NoReuse,
    }
}

fn hash(h: p2t::MetadataHashValue) -> MetadataHashValue {
    MetadataHashValue {
        lower: h.lower,
        upper: h.upper,
    }
}

/// Runs a 0.2 function in two halves: `prepare` (the checks on the
/// store's WASI view, which make the blocking work), then the work itself,
/// outside the store, as the context says ([`run_blocking`]: on a thread
/// of weft-wasi's blocking pool unless `allow_blocking_current_thread`),
/// so other tasks of the store go on while the disk works.
async fn with<T: 'static, R: Send + 'static, W: Work<R>>(
    accessor: &Accessor<T, WasiFilesystem>,
    d: &Resource<Descriptor>,
    prepare: impl FnOnce(&mut WasiFilesystemCtxView<'_>) -> Result<W, FsError>,
) -> FilesystemResult<R> {
    let (allow, work) = accessor
        .with(|mut access| {
            let mut view = access.get();
            let allow = view.allow_blocking(d);
            prepare(&mut view).map(|w| (allow, w))
        })
        .map_err(err)?;
    run_blocking(allow, work)
        .await
        .map_err(FsError::trap)
        .and_then(|r| r)
        .map_err(err)
}

/// Reads a file for a guest reading a 0.3 stream, a job at a time on
/// weft-wasi's blocking pool (WASI 0.2's file reads).
struct FileProducer {
    reader: Option<FileReader>,
    slot: ResultSlot<ErrorCode>,
}

impl Drop for FileProducer {
    fn drop(&mut self) {
        self.slot.set(Ok(()));
    }
}

impl<D: 'static> StreamProducer<D> for FileProducer {
    type Item = u8;
    type Buffer = VecBuffer<u8>;

    fn poll_produce<'a>(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut store: StoreContextMut<'a, D>,
        destination: Destination<'a, u8, VecBuffer<u8>>,
        finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let room = destination.remaining(&mut store).unwrap_or(64 << 10);
        if room == 0 {
            return Poll::Ready(Ok(StreamResult::Completed));
        }
        let Some(reader) = self.reader.as_mut() else {
            return Poll::Ready(Ok(StreamResult::Dropped));
        };
        match reader.poll_read(cx, room.min(FILE_BUDGET)) {
            // The read goes on; its bytes go to the next read.
            Poll::Pending if finish => Poll::Ready(Ok(StreamResult::Cancelled)),
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(bytes)) if bytes.is_empty() => Poll::Ready(Ok(StreamResult::Dropped)),
            Poll::Ready(Ok(bytes)) => {
                // At most the reader's room was read, so it all fits.
                let mut dst = destination.as_direct(store, bytes.len());
                std::io::Write::write(&mut dst, &bytes)?;
                Poll::Ready(Ok(StreamResult::Completed))
            }
            Poll::Ready(Err(e)) => {
                self.slot.set(Err(io_code(e)));
                self.reader = None;
                Poll::Ready(Ok(StreamResult::Dropped))
            }
        }
    }
}

/// The error code of a failed read or write.
fn io_code(e: std::io::Error) -> ErrorCode {
    FsError::from(e).downcast().map(code).unwrap_or(ErrorCode::Io)
}

/// Writes what a guest writes to a 0.3 stream to a file, a job at a time
/// on weft-wasi's blocking pool (WASI 0.2's file writes). A write counts
/// as done for the guest when it is on the file.
struct FileConsumer {
    writer: FileWriter,
    /// The bytes of the write in progress, marked read when it ends.
    in_flight: usize,
    slot: ResultSlot<ErrorCode>,
}

impl Drop for FileConsumer {
    fn drop(&mut self) {
        self.slot.set(Ok(()));
    }
}

impl<D: 'static> StreamConsumer<D> for FileConsumer {
    type Item = u8;

    fn poll_consume(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        store: StoreContextMut<D>,
        source: Source<'_, u8>,
        finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        // A write in progress is waited for, even when the guest cancels:
        // its bytes may be on the file already.
        if self.writer.poll_settled(cx).is_pending() {
            return Poll::Pending;
        }
        let mut src = source.as_direct(store);
        if self.in_flight == 0 {
            if finish {
                return Poll::Ready(Ok(StreamResult::Cancelled));
            }
            let pending = src.remaining();
            let n = pending.len().min(FILE_BUDGET);
            if n == 0 {
                return Poll::Ready(Ok(StreamResult::Completed));
            }
            let chunk = bytes::Bytes::copy_from_slice(&pending[..n]);
            self.writer.start(chunk);
            self.in_flight = n;
            // Ended at once (on this thread), or wakes this poll when it does.
            if self.writer.poll_settled(cx).is_pending() {
                return Poll::Pending;
            }
        }
        // The write of `in_flight` bytes has ended.
        let n = std::mem::take(&mut self.in_flight).min(src.remaining().len());
        match self.writer.take_error() {
            Ok(()) => {
                src.mark_read(n);
                Poll::Ready(Ok(StreamResult::Completed))
            }
            Err(e) => {
                self.slot.set(Err(io_code(e)));
                Poll::Ready(Ok(StreamResult::Dropped))
            }
        }
    }
}

/// Gives a directory's entries to a guest reading a 0.3 stream, listing
/// a batch as the guest reads.
struct EntryProducer {
    lister: DirLister<FsResult<p2t::DirectoryEntry>>,
    slot: ResultSlot<ErrorCode>,
}

impl Drop for EntryProducer {
    fn drop(&mut self) {
        self.slot.set(Ok(()));
    }
}

impl<D: 'static> StreamProducer<D> for EntryProducer {
    type Item = DirectoryEntry;
    type Buffer = VecBuffer<DirectoryEntry>;

    fn poll_produce<'a>(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut store: StoreContextMut<'a, D>,
        mut destination: Destination<'a, DirectoryEntry, VecBuffer<DirectoryEntry>>,
        finish: bool,
    ) -> Poll<weft::Result<StreamResult>> {
        let room = destination.remaining(&mut store).unwrap_or(64).max(1);
        let batch = match self.lister.poll_batch(cx, room) {
            // The batch goes on; its entries go to the next read.
            Poll::Pending if finish => return Poll::Ready(Ok(StreamResult::Cancelled)),
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Ok(batch)) => batch,
            Poll::Ready(Err(e)) => {
                self.slot.set(Err(io_code(e)));
                return Poll::Ready(Ok(StreamResult::Dropped));
            }
        };
        let mut out = Vec::with_capacity(batch.len());
        for e in batch {
            match e {
                Ok(e) => out.push(DirectoryEntry {
                    type_: dtype(e.type_),
                    name: e.name,
                }),
                Err(e) => {
                    // An entry that cannot be listed ends the listing.
                    self.slot.set(Err(err(e).downcast().unwrap_or(ErrorCode::Io)));
                    self.lister = DirLister::ended(entry_of);
                    break;
                }
            }
        }
        if out.is_empty() {
            return Poll::Ready(Ok(StreamResult::Dropped));
        }
        destination.set_buffer(VecBuffer::from(out));
        Poll::Ready(Ok(StreamResult::Completed))
    }
}

/// A stream that ends at once, its future failing with `e`.
fn failed<T: 'static>(
    host: &mut Access<'_, T, WasiFilesystem>,
    e: FsError,
) -> weft::Result<FutureReader<Result<(), ErrorCode>>> {
    let slot = ResultSlot::default();
    set_code(&slot, e)?;
    FutureReader::new(host, slot.wait())
}

/// Puts the guest's error code of `e` in `slot`; a trap is returned.
fn set_code(slot: &ResultSlot<ErrorCode>, e: FsError) -> weft::Result<()> {
    slot.set(Err(err(e).downcast()?));
    Ok(())
}

impl t::Host for WasiFilesystemCtxView<'_> {
    fn convert_error_code(&mut self, err: FilesystemError) -> weft::Result<ErrorCode> {
        err.downcast()
    }
}

impl t::HostDescriptor for WasiFilesystemCtxView<'_> {
    fn drop(&mut self, rep: Resource<Descriptor>) -> weft::Result<()> {
        p2t::HostDescriptor::drop(self, rep)
    }
}

/// Pipes `data` into the 0.2 output stream `open` makes.
fn write_stream<T: 'static>(
    host: &mut Access<'_, T, WasiFilesystem>,
    data: StreamReader<u8>,
    open: impl FnOnce(&WasiFilesystemCtxView<'_>) -> Result<FileWriter, FsError>,
) -> weft::Result<FutureReader<Result<(), ErrorCode>>> {
    let opened = open(&host.get());
    let writer = match opened {
        Ok(o) => o,
        Err(e) => {
            let mut data = data;
            data.close(&mut *host)?;
            return failed(host, e);
        }
    };
    let slot = ResultSlot::default();
    data.pipe(
        &mut *host,
        FileConsumer {
            writer,
            in_flight: 0,
            slot: slot.clone(),
        },
    )?;
    FutureReader::new(host, slot.wait())
}

impl<T: 'static> t::HostDescriptorWithStore<T> for WasiFilesystem {
    fn read_via_stream(
        mut host: Access<'_, T, Self>,
        self_: Resource<Descriptor>,
        offset: Filesize,
    ) -> weft::Result<(StreamReader<u8>, FutureReader<Result<(), ErrorCode>>)> {
        let opened = host.get().file_reader(&self_, offset);
        let slot = ResultSlot::default();
        let reader = match opened {
            Ok(r) => Some(r),
            Err(e) => {
                set_code(&slot, e)?;
                None
            }
        };
        let stream = StreamReader::new(
            &mut host,
            FileProducer {
                reader,
                slot: slot.clone(),
            },
        )?;
        Ok((stream, FutureReader::new(&mut host, slot.wait())?))
    }

    fn write_via_stream(
        mut host: Access<'_, T, Self>,
        self_: Resource<Descriptor>,
        data: StreamReader<u8>,
        offset: Filesize,
    ) -> weft::Result<FutureReader<Result<(), ErrorCode>>> {
        write_stream(&mut host, data, |v| v.file_writer(&self_, Some(offset)))
    }

    fn append_via_stream(
        mut host: Access<'_, T, Self>,
        self_: Resource<Descriptor>,
        data: StreamReader<u8>,
    ) -> weft::Result<FutureReader<Result<(), ErrorCode>>> {
        write_stream(&mut host, data, |v| v.file_writer(&self_, None))
    }

    fn read_directory(
        mut host: Access<'_, T, Self>,
        self_: Resource<Descriptor>,
    ) -> weft::Result<(StreamReader<DirectoryEntry>, FutureReader<Result<(), ErrorCode>>)> {
        let opened = host.get().dir_lister(&self_);
        let slot = ResultSlot::default();
        let lister = match opened {
            Ok(l) => l,
            Err(e) => {
                set_code(&slot, e)?;
                DirLister::ended(entry_of)
            }
        };
        let stream = StreamReader::new(
            &mut host,
            EntryProducer {
                lister,
                slot: slot.clone(),
            },
        )?;
        Ok((stream, FutureReader::new(&mut host, slot.wait())?))
    }

    async fn advise(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        offset: Filesize,
        length: Filesize,
        a: Advice,
    ) -> FilesystemResult<()> {
        let _ = (offset, length, advice(a));
        with(accessor, &self_, |v| v.advise_work(&self_)).await
    }

    async fn sync_data(accessor: &Accessor<T, Self>, self_: Resource<Descriptor>) -> FilesystemResult<()> {
        with(accessor, &self_, |v| v.sync_data_work(&self_)).await
    }

    async fn get_flags(accessor: &Accessor<T, Self>, self_: Resource<Descriptor>) -> FilesystemResult<DescriptorFlags> {
        with(accessor, &self_, |v| v.get_flags_work(&self_))
            .await
            .map(flags_from_p2)
    }

    async fn get_type(accessor: &Accessor<T, Self>, self_: Resource<Descriptor>) -> FilesystemResult<DescriptorType> {
        with(accessor, &self_, |v| v.get_type_work(&self_)).await.map(dtype)
    }

    async fn set_size(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        size: Filesize,
    ) -> FilesystemResult<()> {
        with(accessor, &self_, |v| v.set_size_work(&self_, size)).await
    }

    async fn set_times(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        data_access_timestamp: NewTimestamp,
        data_modification_timestamp: NewTimestamp,
    ) -> FilesystemResult<()> {
        let (a, m) = (
            timestamp(data_access_timestamp)?,
            timestamp(data_modification_timestamp)?,
        );
        with(accessor, &self_, |v| v.set_times_work(&self_, a, m)).await
    }

    async fn sync(accessor: &Accessor<T, Self>, self_: Resource<Descriptor>) -> FilesystemResult<()> {
        with(accessor, &self_, |v| v.sync_work(&self_)).await
    }

    async fn create_directory_at(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        path: String,
    ) -> FilesystemResult<()> {
        with(accessor, &self_, |v| v.create_directory_at_work(&self_, path)).await
    }

    async fn stat(accessor: &Accessor<T, Self>, self_: Resource<Descriptor>) -> FilesystemResult<DescriptorStat> {
        with(accessor, &self_, |v| v.stat_work(&self_)).await.map(stat)
    }

    async fn stat_at(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        flags: PathFlags,
        path: String,
    ) -> FilesystemResult<DescriptorStat> {
        with(accessor, &self_, |v| v.stat_at_work(&self_, path_flags(flags), path))
            .await
            .map(stat)
    }

    async fn set_times_at(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        flags: PathFlags,
        path: String,
        data_access_timestamp: NewTimestamp,
        data_modification_timestamp: NewTimestamp,
    ) -> FilesystemResult<()> {
        let (a, m) = (
            timestamp(data_access_timestamp)?,
            timestamp(data_modification_timestamp)?,
        );
        with(accessor, &self_, |v| {
            v.set_times_at_work(&self_, path_flags(flags), path, a, m)
        })
        .await
    }

    async fn link_at(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        old_path_flags: PathFlags,
        old_path: String,
        new_descriptor: Resource<Descriptor>,
        new_path: String,
    ) -> FilesystemResult<()> {
        with(accessor, &self_, |v| {
            v.link_at_work(&self_, path_flags(old_path_flags), old_path, &new_descriptor, new_path)
        })
        .await
    }

    async fn open_at(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        flags: PathFlags,
        path: String,
        o: OpenFlags,
        d: DescriptorFlags,
    ) -> FilesystemResult<Resource<Descriptor>> {
        let desc = with(accessor, &self_, |v| {
            v.open_at_work(&self_, path_flags(flags), path, open_flags(o), flags_to_p2(d))
        })
        .await?;
        accessor
            .with(|mut access| access.get().table.push(desc))
            .map_err(FilesystemError::trap)
    }

    async fn readlink_at(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        path: String,
    ) -> FilesystemResult<String> {
        with(accessor, &self_, |v| v.readlink_at_work(&self_, path)).await
    }

    async fn remove_directory_at(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        path: String,
    ) -> FilesystemResult<()> {
        with(accessor, &self_, |v| v.remove_directory_at_work(&self_, path)).await
    }

    async fn rename_at(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        old_path: String,
        new_descriptor: Resource<Descriptor>,
        new_path: String,
    ) -> FilesystemResult<()> {
        with(accessor, &self_, |v| {
            v.rename_at_work(&self_, old_path, &new_descriptor, new_path)
        })
        .await
    }

    async fn symlink_at(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        old_path: String,
        new_path: String,
    ) -> FilesystemResult<()> {
        with(accessor, &self_, |v| v.symlink_at_work(&self_, old_path, new_path)).await
    }

    async fn unlink_file_at(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        path: String,
    ) -> FilesystemResult<()> {
        with(accessor, &self_, |v| v.unlink_file_at_work(&self_, path)).await
    }

    async fn is_same_object(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        other: Resource<Descriptor>,
    ) -> weft::Result<bool> {
        let (allow, work) = accessor.with(|mut access| {
            let view = access.get();
            let allow = view.allow_blocking(&self_);
            view.is_same_object_work(&self_, &other).map(|w| (allow, w))
        })?;
        run_blocking(allow, work).await?
    }

    async fn metadata_hash(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
    ) -> FilesystemResult<MetadataHashValue> {
        with(accessor, &self_, |v| v.metadata_hash_work(&self_)).await.map(hash)
    }

    async fn metadata_hash_at(
        accessor: &Accessor<T, Self>,
        self_: Resource<Descriptor>,
        flags: PathFlags,
        path: String,
    ) -> FilesystemResult<MetadataHashValue> {
        with(accessor, &self_, |v| {
            v.metadata_hash_at_work(&self_, path_flags(flags), path)
        })
        .await
        .map(hash)
    }
}

impl preopens::Host for WasiFilesystemCtxView<'_> {
    fn get_directories(&mut self) -> weft::Result<Vec<(Resource<Descriptor>, String)>> {
        crate::p2::bindings::wasi::filesystem::preopens::Host::get_directories(self)
    }
}
