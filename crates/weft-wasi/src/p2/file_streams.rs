//! The file streams (`read-via-stream`, `write-via-stream`,
//! `append-via-stream`) and the reads and writes beneath them, shared with
//! WASI 0.3's file streams and directory listings.
//!
//! As in Wasmtime 48, a stream never touches the disk on the thread that
//! polls the guest: each read or write is a job on weft-wasi's blocking
//! pool, the stream's pollable is ready when the job ends, and the stream
//! reports "nothing yet" meanwhile (an empty read, a `check-write` of 0).
//! With `allow_blocking_current_thread` (or when no runtime can be
//! started) the job runs at once on the calling thread instead.

use super::io::{InputStream, OutputStream, Pollable, StreamError, StreamResult};
use bytes::Bytes;
use std::future::Future;
use std::os::unix::fs::FileExt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

/// The most bytes one read asks of the disk, and the most one write
/// accepts (`check-write`).
pub(crate) const FILE_BUDGET: usize = 1 << 20;

/// Blocking work started by [`Job::start`]: done already, or running on
/// the blocking pool.
pub(crate) enum Job<R> {
    /// Ran on the calling thread; `None` once its result is taken.
    Done(Option<R>),
    /// Runs on the blocking pool (dropping it abandons the result).
    Running(crate::runtime::AbortOnDropJoinHandle<R>),
}

impl<R: Send + 'static> Job<R> {
    /// Starts `f` as the descriptor functions' `run_blocking` would run
    /// it, but without waiting for it.
    pub(crate) fn start(allow_blocking_current_thread: bool, f: impl FnOnce() -> R + Send + 'static) -> Job<R> {
        if allow_blocking_current_thread {
            return Job::Done(Some(f()));
        }
        match crate::runtime::handle() {
            Ok(h) => Job::Running(h.spawn_blocking(f).into()),
            Err(_) => Job::Done(Some(f())),
        }
    }
}

impl<R: Send + 'static> Job<std::io::Result<R>> {
    /// The job's result once it ends; a job that panicked is an error.
    fn poll_result(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<R>> {
        match self {
            Job::Done(r) => Poll::Ready(
                r.take()
                    .unwrap_or_else(|| Err(std::io::Error::other("file job polled after its end"))),
            ),
            Job::Running(h) => Pin::new(&mut **h).poll(cx).map(|r| match r {
                Ok(r) => r,
                Err(e) => Err(std::io::Error::other(format!(
                    "the file job on the blocking pool failed: {e}"
                ))),
            }),
        }
    }
}

/// Polls `f` once, with a waker that does nothing: for the non-blocking
/// stream functions, which only look whether a job has ended.
fn peek<T>(f: impl FnOnce(&mut Context<'_>) -> Poll<T>) -> Poll<T> {
    f(&mut Context::from_waker(Waker::noop()))
}

/// Where a [`FileReader`] is.
enum ReadState {
    /// No read started, nothing held.
    Idle,
    /// A read of the disk in progress.
    Reading(Job<std::io::Result<Vec<u8>>>),
    /// Bytes read and not yet taken (never empty).
    Data(Bytes),
    /// The end of the file (an empty read) or a failure, not yet taken.
    Ended(std::io::Result<()>),
}

/// Reads a file from a position on, a job at a time.
pub(crate) struct FileReader {
    file: Arc<std::fs::File>,
    pos: u64,
    allow_blocking_current_thread: bool,
    state: ReadState,
}

impl FileReader {
    /// A reader of `file` from `pos` on.
    pub(crate) fn new(file: Arc<std::fs::File>, pos: u64, allow_blocking_current_thread: bool) -> FileReader {
        FileReader {
            file,
            pos,
            allow_blocking_current_thread,
            state: ReadState::Idle,
        }
    }

    /// Waits for the read in progress, if any, keeping what it gives.
    pub(crate) fn poll_settled(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if let ReadState::Reading(job) = &mut self.state {
            let Poll::Ready(r) = job.poll_result(cx) else {
                return Poll::Pending;
            };
            self.state = match r {
                Ok(buf) if buf.is_empty() => ReadState::Ended(Ok(())),
                Ok(buf) => {
                    self.pos += buf.len() as u64;
                    ReadState::Data(buf.into())
                }
                Err(e) => ReadState::Ended(Err(e)),
            };
        }
        Poll::Ready(())
    }

    /// Up to `size` bytes (at least one), an empty `Bytes` at the end of
    /// the file, or the error of the read. Starts a read when none is in
    /// progress; a read that ends at once (on the calling thread) gives
    /// its bytes in this call. A read in progress keeps going if this
    /// poll is dropped, and its bytes are kept for the next call.
    pub(crate) fn poll_read(&mut self, cx: &mut Context<'_>, size: usize) -> Poll<std::io::Result<Bytes>> {
        loop {
            match std::mem::replace(&mut self.state, ReadState::Idle) {
                ReadState::Idle => {
                    let (file, pos) = (self.file.clone(), self.pos);
                    let len = size.clamp(1, FILE_BUDGET);
                    self.state = ReadState::Reading(Job::start(self.allow_blocking_current_thread, move || {
                        let mut buf = vec![0; len];
                        let n = file.read_at(&mut buf, pos)?;
                        buf.truncate(n);
                        Ok(buf)
                    }));
                }
                reading @ ReadState::Reading(_) => {
                    self.state = reading;
                    if self.poll_settled(cx).is_pending() {
                        return Poll::Pending;
                    }
                }
                ReadState::Data(mut b) => {
                    let chunk = b.split_to(b.len().min(size.max(1)));
                    if !b.is_empty() {
                        self.state = ReadState::Data(b);
                    }
                    return Poll::Ready(Ok(chunk));
                }
                ReadState::Ended(r) => return Poll::Ready(r.map(|()| Bytes::new())),
            }
        }
    }
}

/// Where a [`FileWriter`] is.
enum WriteState {
    /// Ready for a write.
    Idle,
    /// A write of the disk in progress.
    Writing(Job<std::io::Result<usize>>),
    /// The last write failed; the error is not yet taken.
    Failed(std::io::Error),
}

/// Writes a file at a position (advancing it) or at its end, a job at a
/// time.
pub(crate) struct FileWriter {
    file: Arc<std::fs::File>,
    /// `None` appends.
    pos: Option<u64>,
    allow_blocking_current_thread: bool,
    state: WriteState,
}

impl FileWriter {
    /// A writer of `file` at `pos` on, or at its end (`None`).
    pub(crate) fn new(file: Arc<std::fs::File>, pos: Option<u64>, allow_blocking_current_thread: bool) -> FileWriter {
        FileWriter {
            file,
            pos,
            allow_blocking_current_thread,
            state: WriteState::Idle,
        }
    }

    /// Waits for the write in progress, if any, keeping its error.
    pub(crate) fn poll_settled(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if let WriteState::Writing(job) = &mut self.state {
            let Poll::Ready(r) = job.poll_result(cx) else {
                return Poll::Pending;
            };
            self.state = match r {
                Ok(n) => {
                    if let Some(p) = &mut self.pos {
                        *p += n as u64;
                    }
                    WriteState::Idle
                }
                Err(e) => WriteState::Failed(e),
            };
        }
        Poll::Ready(())
    }

    /// Whether a write is in progress.
    pub(crate) fn busy(&mut self) -> bool {
        peek(|cx| self.poll_settled(cx)).is_pending()
    }

    /// The error of the last write, once; `Ok` while one is in progress.
    pub(crate) fn take_error(&mut self) -> std::io::Result<()> {
        match std::mem::replace(&mut self.state, WriteState::Idle) {
            WriteState::Failed(e) => Err(e),
            other => {
                self.state = other;
                Ok(())
            }
        }
    }

    /// Starts writing `bytes` (the caller saw [`FileWriter::busy`] false
    /// and took the last error); a write that runs on the calling thread
    /// has ended when this returns.
    pub(crate) fn start(&mut self, bytes: Bytes) {
        let (file, pos) = (self.file.clone(), self.pos);
        let job = Job::start(self.allow_blocking_current_thread, move || {
            let at = match pos {
                Some(p) => p,
                None => file.metadata()?.len(),
            };
            file.write_all_at(&bytes, at)?;
            Ok(bytes.len())
        });
        self.state = WriteState::Writing(job);
        // A job done on this thread settles at once.
        let _ = peek(|cx| self.poll_settled(cx));
    }
}

/// A file read from a position on (`read-via-stream`).
pub(crate) struct FileInputStream {
    reader: FileReader,
    closed: bool,
}

impl FileInputStream {
    /// The stream of `reader`.
    pub(crate) fn new(reader: FileReader) -> FileInputStream {
        FileInputStream { reader, closed: false }
    }
}

#[async_trait::async_trait]
impl Pollable for FileInputStream {
    async fn ready(&mut self) {
        std::future::poll_fn(|cx| self.reader.poll_settled(cx)).await
    }
}

impl InputStream for FileInputStream {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        if self.closed {
            return Err(StreamError::Closed);
        }
        if size == 0 {
            return Ok(Bytes::new());
        }
        match peek(|cx| self.reader.poll_read(cx, size)) {
            Poll::Pending => Ok(Bytes::new()),
            Poll::Ready(Ok(b)) if b.is_empty() => {
                self.closed = true;
                Err(StreamError::Closed)
            }
            Poll::Ready(Ok(b)) => Ok(b),
            Poll::Ready(Err(e)) => {
                self.closed = true;
                Err(StreamError::LastOperationFailed(e.into()))
            }
        }
    }
}

/// A file written at a position, or appended to (`write-via-stream`,
/// `append-via-stream`). A write's error is reported by the next call.
pub(crate) struct FileOutputStream {
    writer: FileWriter,
    closed: bool,
}

impl FileOutputStream {
    /// The stream of `writer`.
    pub(crate) fn new(writer: FileWriter) -> FileOutputStream {
        FileOutputStream { writer, closed: false }
    }

    /// `Closed` after a failure; the failure of the last write, once.
    fn check(&mut self) -> StreamResult<()> {
        if self.closed {
            return Err(StreamError::Closed);
        }
        self.writer.take_error().map_err(|e| {
            self.closed = true;
            StreamError::LastOperationFailed(e.into())
        })
    }
}

#[async_trait::async_trait]
impl Pollable for FileOutputStream {
    async fn ready(&mut self) {
        std::future::poll_fn(|cx| self.writer.poll_settled(cx)).await
    }
}

#[async_trait::async_trait]
impl OutputStream for FileOutputStream {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        if self.writer.busy() || bytes.len() > FILE_BUDGET {
            return Err(StreamError::trap("write of more bytes than `check-write` allowed"));
        }
        self.check()?;
        if !bytes.is_empty() {
            self.writer.start(bytes);
        }
        Ok(())
    }
    fn flush(&mut self) -> StreamResult<()> {
        // Nothing is buffered: each write goes to the disk as it is made.
        if self.closed {
            return Err(StreamError::Closed);
        }
        Ok(())
    }
    fn check_write(&mut self) -> StreamResult<usize> {
        if self.writer.busy() {
            return Ok(0);
        }
        self.check()?;
        Ok(FILE_BUDGET)
    }
    async fn cancel(&mut self) {
        // A write in progress reaches the file before the stream goes.
        std::future::poll_fn(|cx| self.writer.poll_settled(cx)).await
    }
}

/// How a [`DirLister`] makes its items of the directory's entries (run
/// in the listing's jobs, since looking at an entry may touch the disk).
#[cfg_attr(
    not(feature = "p3"),
    allow(dead_code, reason = "WASI 0.3's read-directory lists with it")
)]
pub(crate) type MakeEntry<T> = fn(std::io::Result<cap_std::fs::DirEntry>) -> T;

/// Where a [`DirLister`] is.
#[cfg_attr(
    not(feature = "p3"),
    allow(dead_code, reason = "WASI 0.3's read-directory lists with it")
)]
enum ListState<T> {
    /// Not opened yet.
    Start(Arc<cap_std::fs::Dir>),
    /// Opened, between batches.
    Open(cap_std::fs::ReadDir),
    /// A batch in progress; it gives the listing back unless it ended.
    Listing(Job<std::io::Result<(Option<cap_std::fs::ReadDir>, Vec<T>)>>),
    /// Listed to the end, or failed.
    Ended,
}

/// Lists a directory a batch at a time, each batch a job (WASI 0.3's
/// `read-directory`, whose stream the guest may read slowly or drop
/// early): nothing is listed before it is asked for.
#[cfg_attr(
    not(feature = "p3"),
    allow(dead_code, reason = "WASI 0.3's read-directory lists with it")
)]
pub(crate) struct DirLister<T> {
    allow_blocking_current_thread: bool,
    make: MakeEntry<T>,
    state: ListState<T>,
}

#[cfg_attr(
    not(feature = "p3"),
    allow(dead_code, reason = "WASI 0.3's read-directory lists with it")
)]
impl<T: Send + 'static> DirLister<T> {
    /// A lister of `dir`, whose items `make` makes.
    pub(crate) fn new(dir: Arc<cap_std::fs::Dir>, allow_blocking_current_thread: bool, make: MakeEntry<T>) -> Self {
        DirLister {
            allow_blocking_current_thread,
            make,
            state: ListState::Start(dir),
        }
    }

    /// A lister that lists nothing.
    pub(crate) fn ended(make: MakeEntry<T>) -> Self {
        DirLister {
            allow_blocking_current_thread: false,
            make,
            state: ListState::Ended,
        }
    }

    /// Up to `n` (at least one) more entries, none at the end; an error
    /// when the directory cannot be opened for listing (and then the
    /// end). A batch in progress keeps going if this poll is dropped.
    pub(crate) fn poll_batch(&mut self, cx: &mut Context<'_>, n: usize) -> Poll<std::io::Result<Vec<T>>> {
        loop {
            match std::mem::replace(&mut self.state, ListState::Ended) {
                ListState::Ended => return Poll::Ready(Ok(Vec::new())),
                ListState::Start(dir) => {
                    self.state = self.batch(n, move || dir.entries());
                }
                ListState::Open(it) => {
                    self.state = self.batch(n, move || Ok(it));
                }
                ListState::Listing(mut job) => match job.poll_result(cx) {
                    Poll::Pending => {
                        self.state = ListState::Listing(job);
                        return Poll::Pending;
                    }
                    Poll::Ready(Ok((rest, entries))) => {
                        if let Some(it) = rest {
                            self.state = ListState::Open(it);
                        }
                        return Poll::Ready(Ok(entries));
                    }
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                },
            }
        }
    }

    /// A job taking up to `n` entries of the listing `open` gives.
    fn batch(
        &self,
        n: usize,
        open: impl FnOnce() -> std::io::Result<cap_std::fs::ReadDir> + Send + 'static,
    ) -> ListState<T> {
        let make = self.make;
        ListState::Listing(Job::start(self.allow_blocking_current_thread, move || {
            let mut it = open()?;
            let entries: Vec<T> = it.by_ref().take(n.max(1)).map(make).collect();
            let ended = entries.is_empty();
            Ok(((!ended).then_some(it), entries))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Polls `f` until it is ready, parking between polls.
    fn wait<T>(mut f: impl FnMut(&mut Context<'_>) -> Poll<T>) -> T {
        crate::runtime::in_tokio(std::future::poll_fn(|cx| f(cx)))
    }

    fn temp_file(name: &str, contents: &[u8]) -> Arc<std::fs::File> {
        let path = std::env::temp_dir().join(format!("weft-file-streams-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).expect("write the file");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .expect("open the file");
        std::fs::remove_file(&path).expect("unlink the file");
        Arc::new(file)
    }

    #[test]
    fn jobs_run_on_the_pool_unless_blocking_is_allowed() {
        let here = std::thread::current().id();
        let mut job = Job::start(false, move || Ok(std::thread::current().id()));
        assert!(matches!(job, Job::Running(_)));
        assert_ne!(wait(|cx| job.poll_result(cx)).expect("the job's result"), here);
        let mut job = Job::start(true, move || Ok(std::thread::current().id()));
        assert!(matches!(job, Job::Done(_)));
        assert_eq!(wait(|cx| job.poll_result(cx)).expect("the job's result"), here);
        // Its result is given once.
        assert!(wait(|cx| job.poll_result(cx)).is_err());
    }

    #[test]
    fn a_reader_reads_in_pieces_to_the_end() {
        for allow in [false, true] {
            let mut r = FileReader::new(temp_file(&format!("read-{allow}"), b"0123456789"), 3, allow);
            let mut got = Vec::new();
            loop {
                let piece = wait(|cx| r.poll_read(cx, 4)).expect("a read");
                if piece.is_empty() {
                    break;
                }
                assert!(piece.len() <= 4);
                got.extend_from_slice(&piece);
            }
            assert_eq!(got, b"3456789", "allow_blocking_current_thread({allow})");
        }
    }

    #[test]
    fn a_writer_writes_at_its_position_and_appends() {
        for allow in [false, true] {
            let file = temp_file(&format!("write-{allow}"), b"......");
            let mut w = FileWriter::new(file.clone(), Some(1), allow);
            for piece in [&b"ab"[..], b"cd"] {
                w.start(Bytes::from_static(piece));
                wait(|cx| w.poll_settled(cx));
                w.take_error().expect("the write");
            }
            let mut a = FileWriter::new(file.clone(), None, allow);
            a.start(Bytes::from_static(b"!"));
            wait(|cx| a.poll_settled(cx));
            a.take_error().expect("the append");
            let mut buf = [0; 7];
            file.read_exact_at(&mut buf, 0).expect("read back");
            assert_eq!(&buf, b".abcd.!", "allow_blocking_current_thread({allow})");
        }
    }

    #[test]
    fn a_lister_gives_batches_then_nothing() {
        let path = std::env::temp_dir().join(format!("weft-dir-lister-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("make the directory");
        for i in 0..5 {
            std::fs::write(path.join(format!("f{i}")), "").expect("make a file");
        }
        let dir = cap_std::fs::Dir::open_ambient_dir(&path, cap_std::ambient_authority()).expect("open it");
        let mut l = DirLister::new(Arc::new(dir), false, |e| e.map(|e| e.file_name()));
        let mut names = Vec::new();
        loop {
            let batch = wait(|cx| l.poll_batch(cx, 2)).expect("a batch");
            assert!(batch.len() <= 2);
            if batch.is_empty() {
                break;
            }
            names.extend(
                batch
                    .into_iter()
                    .map(|e| e.expect("an entry").into_string().expect("a name")),
            );
        }
        names.sort();
        assert_eq!(names, ["f0", "f1", "f2", "f3", "f4"]);
        assert!(wait(|cx| l.poll_batch(cx, 2)).expect("the end").is_empty());
        std::fs::remove_dir_all(&path).expect("remove the directory");
    }
}
