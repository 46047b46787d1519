//! Capturing the wasm frames on the stack now (`WasmBacktrace::capture`
//! and the guest profiler's samples), from the exits the wasm-to-host,
//! collecting-builtin, fuel and epoch trampolines record.

use crate::traps::{walk_frames, MAX_BACKTRACE_FRAMES};
use crate::vm::VMStoreContext;
use std::mem::MaybeUninit;

impl VMStoreContext {
    /// The program counters of the wasm frames of this store on this
    /// thread's stack, innermost first: those of the current activation,
    /// then those of the activations below it (calls into wasm made by
    /// host functions that wasm called). Empty when no wasm runs.
    ///
    /// The frame of a call is named by its return address, as in trap
    /// backtraces. Exits are recorded by the wasm-to-host trampolines and
    /// by those of the collecting, fuel and epoch builtins; an activation
    /// whose exit was not recorded cannot be walked and contributes no
    /// frame. At most
    /// 256 frames (`MAX_BACKTRACE_FRAMES`) are given per activation.
    pub fn wasm_frame_pcs(&self) -> Vec<usize> {
        let mut pcs = Vec::new();
        if !self.wasm_active() {
            return pcs;
        }
        let mut exits = vec![(self.last_wasm_exit_fp.get(), self.last_wasm_exit_pc.get())];
        exits.extend(self.gc_roots.outer_exits.borrow().iter().rev().copied());
        let mut buf = [MaybeUninit::<usize>::uninit(); MAX_BACKTRACE_FRAMES];
        for (exit_fp, exit_pc) in exits {
            if exit_fp == 0 || !crate::code::is_wasm_pc(exit_pc) {
                continue;
            }
            // SAFETY: a recorded exit is the frame pointer of a trampoline
            // that wasm called and that has not returned yet (trampolines
            // clear it on return, and calls into wasm restore the previous
            // one), with `exit_pc` its return address into compiled code.
            // `[exit_fp]` is therefore the frame pointer of that wasm frame,
            // and compiled code keeps frame pointers up to the host.
            let n = unsafe {
                let fp = *(exit_fp as *const usize);
                walk_frames(exit_pc, fp, &mut buf)
            };
            // SAFETY: `walk_frames` wrote the first `n` entries.
            pcs.extend(buf[..n].iter().map(|pc| unsafe { pc.assume_init() }));
        }
        pcs
    }
}
