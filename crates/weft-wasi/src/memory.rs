//! Bounds-checked access to the guest's linear memory.
//!
//! Every pointer and length a guest passes goes through these helpers: an
//! access that does not fit in memory is `fault`, never a panic.

use crate::errno::{Errno, Result};

/// The calling instance's exported `memory`, borrowed for one host call.
pub(crate) struct GuestMemory<'a> {
    bytes: &'a mut [u8],
}

/// One `iovec` or `ciovec`: a buffer of the guest.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IoVec {
    pub(crate) ptr: u32,
    pub(crate) len: u32,
}

impl<'a> GuestMemory<'a> {
    pub(crate) fn new(bytes: &'a mut [u8]) -> Self {
        GuestMemory { bytes }
    }

    fn range(&self, ptr: u32, len: u64) -> Result<std::ops::Range<usize>, Errno> {
        let start = ptr as u64;
        let end = start.checked_add(len).ok_or(Errno::Fault)?;
        if end > self.bytes.len() as u64 {
            return Err(Errno::Fault);
        }
        Ok(start as usize..end as usize)
    }

    /// The bytes `ptr..ptr + len`.
    pub(crate) fn slice(&self, ptr: u32, len: u32) -> Result<&[u8], Errno> {
        let r = self.range(ptr, len as u64)?;
        Ok(&self.bytes[r])
    }

    /// The bytes `ptr..ptr + len`, writable.
    pub(crate) fn slice_mut(&mut self, ptr: u32, len: u32) -> Result<&mut [u8], Errno> {
        let r = self.range(ptr, len as u64)?;
        Ok(&mut self.bytes[r])
    }

    /// A UTF-8 string (`ilseq` when it is not valid UTF-8).
    pub(crate) fn str(&self, ptr: u32, len: u32) -> Result<&str, Errno> {
        std::str::from_utf8(self.slice(ptr, len)?).map_err(|_| Errno::Ilseq)
    }

    /// Copies `data` to `ptr`.
    pub(crate) fn write(&mut self, ptr: u32, data: &[u8]) -> Result<(), Errno> {
        let r = self.range(ptr, data.len() as u64)?;
        self.bytes[r].copy_from_slice(data);
        Ok(())
    }

    pub(crate) fn write_u8(&mut self, ptr: u32, v: u8) -> Result<(), Errno> {
        self.write(ptr, &[v])
    }
    pub(crate) fn write_u16(&mut self, ptr: u32, v: u16) -> Result<(), Errno> {
        self.write(ptr, &v.to_le_bytes())
    }
    pub(crate) fn write_u32(&mut self, ptr: u32, v: u32) -> Result<(), Errno> {
        self.write(ptr, &v.to_le_bytes())
    }
    pub(crate) fn write_u64(&mut self, ptr: u32, v: u64) -> Result<(), Errno> {
        self.write(ptr, &v.to_le_bytes())
    }

    /// The `len` iovecs at `ptr` (8 bytes each: pointer, length), each
    /// checked to lie inside memory.
    pub(crate) fn iovecs(&self, ptr: u32, len: u32) -> Result<Vec<IoVec>, Errno> {
        let table = self.slice(ptr, len.checked_mul(8).ok_or(Errno::Fault)?)?;
        let mut out = Vec::with_capacity(len as usize);
        for chunk in table.chunks_exact(8) {
            let v = IoVec {
                ptr: u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]),
                len: u32::from_le_bytes([chunk[4], chunk[5], chunk[6], chunk[7]]),
            };
            self.range(v.ptr, v.len as u64)?;
            out.push(v);
        }
        Ok(out)
    }
}
