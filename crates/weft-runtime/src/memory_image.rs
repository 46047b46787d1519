//! Copy-on-write images of linear memories.
//!
//! When every active data segment of a defined memory has a constant offset
//! and fits in the memory's minimum size, the memory's initial contents are
//! known before instantiation. They are written once into an in-memory file
//! (`memfd`), and each instantiation maps that file privately over the start
//! of the new memory instead of copying the segments: one `mmap` whatever the
//! size of the data, with pages copied only when the instance writes them.
//!
//! The result is the same as copying the segments in order: later segments
//! overwrite earlier ones in the file, and bytes no segment covers read as
//! zero. Where an image does not apply (an offset read from a global, a
//! segment out of bounds that must trap, a host without `memfd`), segments
//! are copied at instantiation as before.

use crate::mmap::page_size;
use std::io;
use weft_environ::{ConstOp, DataKind, Module, WASM_PAGE_SIZE};

/// The initial contents of one memory, ready to be mapped.
#[derive(Debug)]
pub struct MemoryImage {
    #[cfg(target_os = "linux")]
    source: Source,
    /// Where the image starts in the linear memory (page aligned).
    offset: usize,
    /// The length of the image (page aligned).
    len: usize,
}

/// The file an image is mapped from.
#[cfg(target_os = "linux")]
#[derive(Debug)]
enum Source {
    /// An in-memory file of its own, the whole of which is the image.
    Memfd(std::os::fd::OwnedFd),
    /// A precompiled module's file, which holds the image at `at` (page
    /// aligned).
    File {
        file: std::sync::Arc<std::fs::File>,
        at: u64,
    },
}

/// The initial contents of a memory as an image holds them: `bytes` (a
/// whole number of pages) from `offset` (page aligned) in the memory, zero
/// elsewhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageContents {
    /// Where the contents start in the memory.
    pub offset: usize,
    /// The contents.
    pub bytes: Vec<u8>,
}

/// The constant offset and length of every active segment of `memory`, or
/// `None` when one of them has an offset that depends on a global or does
/// not fit in the memory's minimum size.
fn constant_segments(module: &Module, memory: u32) -> Option<Vec<(usize, &[u8])>> {
    let minimum = module
        .memories
        .get(memory as usize)?
        .minimum
        .checked_mul(WASM_PAGE_SIZE)?;
    let mut out = Vec::new();
    for seg in &module.data {
        if let DataKind::Active { memory: m, offset } = &seg.kind {
            if *m != memory {
                continue;
            }
            let [ConstOp::I32Const(offset)] = offset.ops.as_slice() else {
                return None;
            };
            let start = *offset as u32 as u64;
            if start + seg.data.len() as u64 > minimum {
                return None;
            }
            out.push((start as usize, &seg.data[..]));
        }
    }
    Some(out)
}

/// The page-aligned span `(offset, len)` an image of `segments` covers, or
/// `None` when they are all empty or the host's pages do not divide wasm
/// pages.
fn span(segments: &[(usize, &[u8])]) -> Option<(usize, usize)> {
    let page = page_size();
    if !(WASM_PAGE_SIZE as usize).is_multiple_of(page) {
        return None;
    }
    let nonempty = segments.iter().filter(|(_, d)| !d.is_empty());
    let start = nonempty.clone().map(|(o, _)| *o).min()?;
    let end = nonempty.map(|(o, d)| o + d.len()).max().unwrap_or(start);
    let offset = start / page * page;
    Some((offset, crate::mmap::round_up(end - offset, page)))
}

/// The segments of defined memory `m` of `module` that an image can hold:
/// `None` for a memory an image does not apply to.
fn image_segments(module: &Module, m: u32) -> Option<Vec<(usize, &[u8])>> {
    let memory = module.memories.get(m as usize)?;
    // Images map whole 64 KiB pages.
    if memory.memory64 || memory.shared || memory.page_size_log2 != weft_environ::WASM_PAGE_SIZE_LOG2 {
        return None;
    }
    constant_segments(module, m)
}

impl MemoryImage {
    /// The images of the defined memories of `module`, in order: `None` for
    /// a memory without data segments or whose segments must be copied.
    pub fn for_module(module: &Module) -> Vec<Option<MemoryImage>> {
        (module.num_imported_memories..module.memories.len() as u32)
            .map(|m| MemoryImage::new(&image_segments(module, m)?).ok().flatten())
            .collect()
    }

    /// The contents the images of [`MemoryImage::for_module`] hold, for
    /// writing them out (a precompiled module carries them, so that
    /// [`MemoryImage::from_file`] can map them where they lie).
    pub fn contents_for_module(module: &Module) -> Vec<Option<ImageContents>> {
        (module.num_imported_memories..module.memories.len() as u32)
            .map(|m| {
                let segments = image_segments(module, m)?;
                let (offset, len) = span(&segments)?;
                let mut bytes = vec![0; len];
                // Later segments overwrite earlier ones, as when copied.
                for (o, data) in segments.iter().filter(|(_, d)| !d.is_empty()) {
                    bytes[o - offset..o - offset + data.len()].copy_from_slice(data);
                }
                Some(ImageContents { offset, bytes })
            })
            .collect()
    }

    /// An image whose `len` bytes lie in `file` at `at`, for `offset` in the
    /// memory: mapped from the file itself at each instantiation, with
    /// nothing copied now. `None` where `at`, `offset` or `len` is not a
    /// whole number of the host's pages, or off Linux.
    pub fn from_file(file: &std::sync::Arc<std::fs::File>, at: u64, offset: usize, len: usize) -> Option<MemoryImage> {
        let page = page_size();
        let aligned = at.is_multiple_of(page as u64) && offset.is_multiple_of(page) && len.is_multiple_of(page);
        #[cfg(target_os = "linux")]
        {
            (aligned && len > 0).then(|| MemoryImage {
                source: Source::File { file: file.clone(), at },
                offset,
                len,
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (file, aligned);
            None
        }
    }

    /// An image holding `segments` (`(offset, bytes)`, applied in order), or
    /// `None` when they are all empty.
    #[cfg(target_os = "linux")]
    fn new(segments: &[(usize, &[u8])]) -> io::Result<Option<MemoryImage>> {
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        let Some((offset, len)) = span(segments) else {
            return Ok(None);
        };
        // SAFETY: `memfd_create` takes a NUL-terminated name and flags; it
        // returns a new descriptor that we own, or -1.
        let raw = unsafe { libc::memfd_create(c"weft-memory-image".as_ptr(), libc::MFD_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh descriptor owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: `ftruncate` on our own descriptor.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) } != 0 {
            return Err(io::Error::last_os_error());
        }
        for (o, data) in segments {
            let mut done = 0;
            while done < data.len() {
                let rest = &data[done..];
                // SAFETY: `rest` is a live slice; `pwrite` reads at most
                // `rest.len()` bytes from it.
                let n = unsafe {
                    libc::pwrite(
                        fd.as_raw_fd(),
                        rest.as_ptr().cast(),
                        rest.len(),
                        (o - offset + done) as libc::off_t,
                    )
                };
                if n <= 0 {
                    return Err(io::Error::last_os_error());
                }
                done += n as usize;
            }
        }
        Ok(Some(MemoryImage {
            source: Source::Memfd(fd),
            offset,
            len,
        }))
    }

    #[cfg(not(target_os = "linux"))]
    fn new(_segments: &[(usize, &[u8])]) -> io::Result<Option<MemoryImage>> {
        Ok(None)
    }

    /// Maps the image privately (copy-on-write) at `base + offset`, which
    /// must lie inside an accessible region of `accessible_len` bytes at
    /// `base` that the caller owns.
    #[cfg(target_os = "linux")]
    pub(crate) fn map_at(&self, base: *mut u8, accessible_len: usize) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        if self.offset + self.len > accessible_len {
            return Err(io::Error::other("memory image larger than the memory"));
        }
        let (fd, at) = match &self.source {
            Source::Memfd(fd) => (fd.as_raw_fd(), 0),
            Source::File { file, at } => (file.as_raw_fd(), *at),
        };
        let at = libc::off_t::try_from(at).map_err(|_| io::Error::other("memory image offset too large"))?;
        // SAFETY: the range `[base + offset, base + offset + len)` lies in a
        // mapping owned by the caller (checked against `accessible_len`), so
        // replacing it with `MAP_FIXED` clobbers nobody else's memory. The
        // mapping is private: writes to it never reach the file. The file
        // mapping keeps the file alive after `fd` is closed.
        let ptr = unsafe {
            libc::mmap(
                base.add(self.offset).cast(),
                self.len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_FIXED,
                fd,
                at,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    #[cfg(not(target_os = "linux"))]
    pub(crate) fn map_at(&self, _base: *mut u8, _accessible_len: usize) -> io::Result<()> {
        Err(io::Error::other("memory images need Linux"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segments_of(wat: &str) -> Option<Vec<(usize, Vec<u8>)>> {
        let bytes = wat::parse_str(wat).unwrap();
        let t = weft_environ::translate_module(&bytes, weft_environ::supported_features()).unwrap();
        constant_segments(&t.module, 0).map(|s| s.into_iter().map(|(o, d)| (o, d.to_vec())).collect())
    }

    #[test]
    fn constant_segments_need_constant_offsets_in_bounds() {
        let segs = segments_of(r#"(module (memory 1) (data (i32.const 10) "ab") (data (i32.const 65534) "cd"))"#);
        assert_eq!(segs, Some(vec![(10, b"ab".to_vec()), (65534, b"cd".to_vec())]));
        assert_eq!(
            segments_of(r#"(module (memory 1) (data (i32.const 65535) "cd"))"#),
            None
        );
        assert_eq!(
            segments_of(r#"(module (import "env" "g" (global i32)) (memory 1) (data (global.get 0) "cd"))"#),
            None
        );
    }

    #[test]
    fn images_cover_their_segments() {
        let bytes =
            wat::parse_str(r#"(module (memory 2) (data (i32.const 70000) "xyz") (data (i32.const 70001) "Q"))"#)
                .unwrap();
        let t = weft_environ::translate_module(&bytes, weft_environ::supported_features()).unwrap();
        let images = MemoryImage::for_module(&t.module);
        assert_eq!(images.len(), 1);
        if cfg!(target_os = "linux") {
            let image = images[0].as_ref().expect("an image");
            assert_eq!(image.offset % page_size(), 0);
            assert!(image.offset <= 70000 && image.offset + image.len >= 70003);
        }
        // What a precompiled module carries: the same span, the segments
        // applied in order (the later `Q` over the `y`), zeros elsewhere.
        let contents = MemoryImage::contents_for_module(&t.module);
        let contents = contents[0].as_ref().expect("contents");
        let page = page_size();
        assert_eq!(contents.offset, 70000 / page * page);
        assert_eq!(contents.bytes.len() % page, 0);
        let at = 70000 - contents.offset;
        assert_eq!(&contents.bytes[at..at + 3], b"xQz");
        assert!(contents.bytes[..at]
            .iter()
            .chain(&contents.bytes[at + 3..])
            .all(|b| *b == 0));
        if cfg!(target_os = "linux") {
            let image = images[0].as_ref().expect("an image");
            assert_eq!((image.offset, image.len), (contents.offset, contents.bytes.len()));
        }
        // A memory without data has no image and no contents.
        let bytes = wat::parse_str("(module (memory 1))").unwrap();
        let t = weft_environ::translate_module(&bytes, weft_environ::supported_features()).unwrap();
        assert_eq!(MemoryImage::contents_for_module(&t.module), vec![None]);
    }

    /// Dropped memories give their reservations back for reuse: a memory
    /// made after others had an image mapped, were written and grew reads
    /// zeros everywhere and has exactly its own size accessible.
    #[test]
    fn reused_reservations_start_clean() {
        use crate::memory::LinearMemory;
        let bytes = wat::parse_str(r#"(module (memory 2) (data (i32.const 70000) "xyz"))"#).unwrap();
        let t = weft_environ::translate_module(&bytes, weft_environ::supported_features()).unwrap();
        let images = MemoryImage::for_module(&t.module);
        // Several rounds, so that some memory reuses a reservation even
        // while other tests take spares from other threads.
        for _ in 0..20 {
            let (mut used, _) = LinearMemory::with_image(2, None, false, 16, images[0].as_ref()).unwrap();
            used.data_mut()[5] = 1;
            assert_eq!(used.grow(3), Some(2));
            used.data_mut()[4 * 65536 + 7] = 2;
            drop(used);
            let (mut fresh, mapped) = LinearMemory::with_image(1, None, false, 16, None).unwrap();
            assert!(!mapped);
            assert_eq!(fresh.byte_size(), 65536);
            assert!(fresh.data().iter().all(|b| *b == 0), "a reused reservation kept data");
            // It grows into zeroed pages too (the old memory's were reset).
            assert_eq!(fresh.grow(4), Some(1));
            assert!(fresh.data().iter().all(|b| *b == 0), "grown pages kept data");
            fresh.data_mut()[0] = 3;
        }
    }
}
