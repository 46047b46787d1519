//! Unwinding an exception to the wasm frame that handles it.
//!
//! Compiled code makes a call in the scope of an exception handler a
//! `try_call`, for which the code's tables record a landing pad (see
//! [`weft_environ::ExceptionHandler`]). Calls outside of any handler's
//! scope record nothing and check nothing after they return: an exception
//! never returns to them. Where compiled code has no handler for the
//! pending exception (its propagate block, through the `Unwind` builtin),
//! and where a host function called from wasm throws, [`resume_at_handler`]
//! walks the frame pointers of the wasm frames from the store's exit,
//! innermost first, to the first return address that has a landing pad,
//! and resumes there with that frame's stack and frame pointers. The
//! landing pad takes every register as clobbered; the frame's own
//! epilogue restores the callee-saved registers of its caller when it
//! returns, so skipping the frames in between loses nothing.
//!
//! The walk stops at the first return address outside compiled code (the
//! host that called into wasm): an exception no frame of this call into
//! wasm handles is then left to trap with `UncaughtException`, which
//! discards the frames as any trap does.

use crate::code;
use crate::vm::VMStoreContext;

/// Where an exception resumes: a landing pad, with the stack and frame
/// pointers of its frame.
#[derive(Debug, Clone, Copy)]
struct Resume {
    pc: usize,
    sp: usize,
    fp: usize,
}

/// Finds the innermost wasm frame, from the one that `pc` returns into
/// (whose frame pointer is `fp`) outwards, whose call returning to its pc
/// has a landing pad.
///
/// # Safety
///
/// `fp` must be the frame pointer of the compiled frame that `pc` is a
/// return address into, and every compiled frame's frame pointer must
/// lead to its caller's (as Cranelift keeps them), up to the first return
/// address outside compiled code.
unsafe fn find_handler(mut pc: usize, mut fp: usize) -> Option<Resume> {
    while fp != 0 {
        match code::exception_handler_at(pc)? {
            Some((handler, frame_offset)) => {
                return Some(Resume {
                    pc: handler,
                    sp: fp.checked_sub(frame_offset as usize)?,
                    fp,
                })
            }
            None => {
                // SAFETY: `fp` is the frame pointer of a compiled frame
                // (the caller's contract, then the previous iteration's):
                // `[fp]` is its caller's frame pointer and `[fp + 8]` the
                // return address into it.
                unsafe {
                    pc = *((fp + 8) as *const usize);
                    fp = *(fp as *const usize);
                }
            }
        }
    }
    None
}

/// Sends the store's pending exception to the innermost wasm frame of the
/// current call into wasm that has a handler for calls at the point it is
/// in, starting from the store's exit (recorded by the trampoline through
/// which wasm called the host or a builtin): resumes at that frame's
/// landing pad and does not return. Returns when no frame has one (or no
/// exit is recorded); the caller then makes wasm trap.
///
/// # Safety
///
/// Must be called on the stack of the wasm frames, while the exit recorded
/// in `ctx` is that of the trampoline through which the innermost of them
/// called the host code running this; every frame between this call and
/// the trampoline's must be a plain frame, with nothing left to drop: it
/// is discarded without returning.
pub(crate) unsafe fn resume_at_handler(ctx: &VMStoreContext) {
    let exit_fp = ctx.last_wasm_exit_fp.get();
    let exit_pc = ctx.last_wasm_exit_pc.get();
    if exit_fp == 0 {
        return;
    }
    // SAFETY: the trampoline that recorded the exit is live (the caller's
    // contract): `[exit_fp]` is the frame pointer of the wasm frame it was
    // called from, which `exit_pc` returns into, and that frame's chain of
    // frame pointers leads through compiled frames to the host.
    let found = unsafe { find_handler(exit_pc, *(exit_fp as *const usize)) };
    if let Some(resume) = found {
        // The exit is over, as when the trampoline returns.
        ctx.last_wasm_exit_fp.set(0);
        // SAFETY: `resume` is a landing pad of a live compiled frame, with
        // its frame pointer and the stack pointer Cranelift recorded for
        // its call; the frames above it are discarded, which the caller
        // allows.
        unsafe { weft_resume(resume.pc, resume.sp, resume.fp) }
    }
}

/// Sets the stack and frame pointers and jumps to `pc`.
///
/// # Safety
///
/// `pc` must be a landing pad of compiled code whose frame has frame
/// pointer `fp` and stack pointer `sp` at its call, on the current stack;
/// everything above `sp` is discarded.
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
unsafe extern "C" fn weft_resume(pc: usize, sp: usize, fp: usize) -> ! {
    std::arch::naked_asm!("mov rsp, rsi", "mov rbp, rdx", "jmp rdi")
}

/// Sets the stack and frame pointers and jumps to `pc`.
///
/// # Safety
///
/// As on x86-64.
#[cfg(target_arch = "aarch64")]
#[unsafe(naked)]
unsafe extern "C" fn weft_resume(pc: usize, sp: usize, fp: usize) -> ! {
    std::arch::naked_asm!("mov sp, x1", "mov x29, x2", "br x0")
}

/// No code is compiled for other machines, so there is no landing pad.
///
/// # Safety
///
/// Never called: [`find_handler`] finds no landing pad without code.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
unsafe extern "C" fn weft_resume(_pc: usize, _sp: usize, _fp: usize) -> ! {
    std::process::abort()
}
