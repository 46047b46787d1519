//! Catching traps of compiled code.
//!
//! A call into wasm runs inside [`catch_traps`], which records a jump buffer
//! in a thread-local [`CallThreadState`]. A trapping instruction of compiled
//! code raises a signal (SIGSEGV/SIGBUS for guard pages, SIGILL for trap
//! instructions, SIGFPE for division); the process-wide handler checks that
//! the faulting pc is in registered code, records the trap and a backtrace,
//! and jumps back to `catch_traps`, discarding every wasm frame at once. No
//! Rust frame is ever skipped: host functions called from wasm catch their
//! own errors and panics and return a status, and compiled code traps with
//! [`Trap::HostError`] after they have returned. (Only an exception that a
//! wasm frame handles skips frames: the host shim's own, with nothing left
//! to drop, when it resumes at the handler; see `unwind.rs`.)

use crate::code;
use std::cell::{Cell, RefCell, UnsafeCell};
use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::sync::Once;
use weft_environ::Trap;

#[cfg(not(all(target_arch = "x86_64", unix)))]
extern "C" {
    fn weft_catch(jmp_slot: *mut *mut c_void, body: extern "C" fn(*mut c_void), data: *mut c_void) -> i32;
    fn weft_unwind(jmp_buf: *mut c_void) -> !;
}

/// Calls `body(data)` and returns 1; or returns 0 when [`weft_unwind`] is
/// given the value this stores in `*jmp_slot` while `body` runs. On x86-64
/// this is a setjmp of its own, which saves what a return from here must
/// restore (the callee-saved registers, by pushing them on this frame) and
/// nothing else: no signal mask (the trap handler is `SA_NODEFER`) and no
/// pointer mangling. `*jmp_slot` is the stack pointer of this frame after
/// the pushes.
///
/// # Safety
///
/// `body` must be safe to call with `data`, and must not unwind.
#[cfg(all(target_arch = "x86_64", unix))]
#[unsafe(naked)]
unsafe extern "C" fn weft_catch(
    jmp_slot: *mut *mut c_void,
    body: extern "C" fn(*mut c_void),
    data: *mut c_void,
) -> i32 {
    // rdi = jmp_slot, rsi = body, rdx = data. On entry rsp is 8 past a
    // 16-byte boundary; after six pushes and 8 bytes of padding it is on
    // one again, as the call needs.
    std::arch::naked_asm!(
        ".cfi_startproc",
        "push rbp",
        ".cfi_def_cfa_offset 16",
        ".cfi_offset rbp, -16",
        "mov rbp, rsp",
        ".cfi_def_cfa_register rbp",
        "push rbx",
        "push r12",
        "push r13",
        "push r14",
        "push r15",
        "sub rsp, 8",
        "mov [rdi], rsp",
        "mov rdi, rdx",
        "call rsi",
        "mov eax, 1",
        "add rsp, 8",
        "pop r15",
        "pop r14",
        "pop r13",
        "pop r12",
        "pop rbx",
        "pop rbp",
        ".cfi_def_cfa rsp, 8",
        "ret",
        ".cfi_endproc",
    )
}

/// Returns 0 from the [`weft_catch`] whose frame `jmp_buf` (the value it
/// stored) points into, discarding every frame above it.
///
/// # Safety
///
/// That `weft_catch` must still be running `body`, on this thread's current
/// stack, and no frame above it may need its destructors run.
#[cfg(all(target_arch = "x86_64", unix))]
#[unsafe(naked)]
unsafe extern "C" fn weft_unwind(jmp_buf: *mut c_void) -> ! {
    std::arch::naked_asm!(
        "mov rsp, rdi",
        "add rsp, 8",
        "pop r15",
        "pop r14",
        "pop r13",
        "pop r12",
        "pop rbx",
        "pop rbp",
        "xor eax, eax",
        "ret",
    )
}

/// The most frames a backtrace records.
pub const MAX_BACKTRACE_FRAMES: usize = 256;

/// Why a call into wasm did not return normally.
#[derive(Debug)]
pub enum UnwindReason {
    /// A trap of compiled code, with the program counters of the wasm frames
    /// (innermost first).
    Trap {
        /// What trapped (its trap code).
        trap: Trap,
        /// Program counters of the wasm frames, innermost first.
        pcs: Vec<usize>,
    },
    /// A host function failed; the error and the wasm frames below it.
    HostError {
        /// The error the host function returned.
        error: anyhow::Error,
        /// Program counters of the wasm frames, innermost first.
        pcs: Vec<usize>,
    },
    /// Wasm threw an exception that no wasm handler caught; it reached the
    /// host that called into wasm.
    UncaughtException {
        /// The store index of the exception's tag ([`crate::TagId`]).
        tag: u32,
        /// The exception, as an exnref word of the store; nothing roots it
        /// once the call returns: the embedder roots it at once (the
        /// facade makes it the store's pending exception).
        exn: usize,
    },
    /// A host function panicked; resume the panic once the wasm frames are gone.
    Panic(Box<dyn std::any::Any + Send>),
}

/// The state of one active call into wasm on this thread.
pub struct CallThreadState {
    jmp_buf: Cell<*mut c_void>,
    trap: Cell<Option<Trap>>,
    /// Filled by the signal handler; only the first `num_pcs` are written.
    /// Left uninitialized so that entering wasm does not clear 2 KiB.
    pcs: UnsafeCell<[MaybeUninit<usize>; MAX_BACKTRACE_FRAMES]>,
    num_pcs: Cell<usize>,
    host: RefCell<Option<UnwindReason>>,
    prev: *const CallThreadState,
}

thread_local! {
    static CURRENT: Cell<*const CallThreadState> = const { Cell::new(std::ptr::null()) };
}

/// Runs `f`, which calls compiled code, and catches its traps.
///
/// `f` must not own anything with a destructor: a trap discards its frame.
///
/// Inlined into each entry to wasm, with the reading of a trap out of line:
/// left to the inliner, whether the common path paid one more call changed
/// with unrelated edits elsewhere in the crate.
#[inline(always)]
pub fn catch_traps<F: FnOnce()>(f: F) -> Result<(), UnwindReason> {
    init_signal_handlers();
    let state = CallThreadState {
        jmp_buf: Cell::new(std::ptr::null_mut()),
        trap: Cell::new(None),
        pcs: UnsafeCell::new([const { MaybeUninit::uninit() }; MAX_BACKTRACE_FRAMES]),
        num_pcs: Cell::new(0),
        host: RefCell::new(None),
        prev: CURRENT.with(|c| c.get()),
    };
    CURRENT.with(|c| c.set(&state));

    extern "C" fn body<F: FnOnce()>(data: *mut c_void) {
        // SAFETY: `data` is the `Option<F>` below, alive for this call.
        let f = unsafe { &mut *data.cast::<Option<F>>() };
        if let Some(f) = f.take() {
            f();
        }
    }
    let mut f = Some(f);
    // SAFETY: `weft_catch` stores the jump buffer in `state.jmp_buf` before
    // running `body`; only the signal handler jumps to it, and only while
    // `state` is the current state of this thread.
    let ok = unsafe { weft_catch(state.jmp_buf.as_ptr(), body::<F>, (&mut f as *mut Option<F>).cast()) };
    CURRENT.with(|c| c.set(state.prev));
    drop(f);
    if ok != 0 {
        return Ok(());
    }
    unwind_reason(&state)
}

/// Why the call of `state` unwound: the trap the handler recorded, or the
/// failure of a host function, with the wasm pcs the handler collected.
#[cold]
#[inline(never)]
fn unwind_reason(state: &CallThreadState) -> Result<(), UnwindReason> {
    // SAFETY: the handler has returned (by jumping to `weft_catch`) and
    // nothing else writes the buffer; its first `num_pcs` entries were
    // written by `walk_frames`.
    let pcs: Vec<usize> = unsafe {
        let buf = &*state.pcs.get();
        buf[..state.num_pcs.get()].iter().map(|pc| pc.assume_init()).collect()
    };
    match state.trap.get() {
        Some(Trap::HostError) | None => match state.host.borrow_mut().take() {
            Some(UnwindReason::HostError { error, .. }) => Err(UnwindReason::HostError { error, pcs }),
            Some(UnwindReason::Trap { trap, .. }) => Err(UnwindReason::Trap { trap, pcs }),
            Some(reason) => Err(reason),
            None => Err(UnwindReason::Trap {
                trap: Trap::HostError,
                pcs,
            }),
        },
        Some(trap) => Err(UnwindReason::Trap { trap, pcs }),
    }
}

/// Records why the host function now running on this thread failed; compiled
/// code raises [`Trap::HostError`] when the host function returns.
pub(crate) fn record_host_failure(reason: UnwindReason) {
    CURRENT.with(|c| {
        let state = c.get();
        if !state.is_null() {
            // SAFETY: the current state outlives the wasm call that is
            // running the host function that calls this.
            let state = unsafe { &*state };
            *state.host.borrow_mut() = Some(reason);
        }
    });
}

/// Walks frame pointers from a wasm frame and collects the pcs of the wasm
/// frames, innermost first.
///
/// # Safety
///
/// `fp` must be the frame pointer of a frame of compiled code whose return
/// address chain leads through compiled code only, up to the host.
pub(crate) unsafe fn walk_frames(mut pc: usize, mut fp: usize, out: &mut [MaybeUninit<usize>]) -> usize {
    let mut n = 0;
    while n < out.len() && fp != 0 && code::is_wasm_pc(pc) {
        out[n] = MaybeUninit::new(pc);
        n += 1;
        // SAFETY: frames of compiled code keep frame pointers: `[fp]` is the
        // caller's fp and `[fp + 8]` the return address (caller's contract).
        unsafe {
            pc = *((fp + 8) as *const usize);
            fp = *(fp as *const usize);
        }
    }
    n
}

static INIT: Once = Once::new();
static mut PREV_HANDLERS: [std::mem::MaybeUninit<libc::sigaction>; 4] = [std::mem::MaybeUninit::zeroed(); 4];
const SIGNALS: [libc::c_int; 4] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE];

/// Installs the process-wide trap handlers (once): after the first call,
/// one load and a branch, inlined into each entry to wasm.
#[inline]
pub fn init_signal_handlers() {
    if !INIT.is_completed() {
        install_signal_handlers();
    }
}

#[cold]
fn install_signal_handlers() {
    INIT.call_once(|| {
        for (i, &sig) in SIGNALS.iter().enumerate() {
            // SAFETY: `sigaction` with a zeroed, filled-in struct; the
            // previous handler is saved once, before any signal can use it.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = trap_handler as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let prev = std::ptr::addr_of_mut!(PREV_HANDLERS[i]).cast::<libc::sigaction>();
                libc::sigaction(sig, &action, prev);
            }
        }
    });
}

extern "C" fn trap_handler(signum: libc::c_int, info: *mut libc::siginfo_t, context: *mut c_void) {
    // SAFETY: the kernel passes a valid ucontext for SA_SIGINFO handlers.
    let (pc, fp) = unsafe { pc_and_fp(context) };
    let state = CURRENT.with(|c| c.get());
    if !state.is_null() {
        if let Some(trap) = code::lookup(pc) {
            let trap = match (trap, signum) {
                (Some(t), _) => t,
                (None, libc::SIGSEGV | libc::SIGBUS) => Trap::MemoryOutOfBounds,
                (None, libc::SIGFPE) => Trap::IntegerDivisionByZero,
                (None, _) => Trap::UnreachableCodeReached,
            };
            // SAFETY: `state` is the live call state of this thread; the
            // faulting frame is compiled code with frame pointers.
            unsafe {
                let state = &*state;
                state.trap.set(Some(trap));
                let pcs = &mut *state.pcs.get();
                state.num_pcs.set(walk_frames(pc, fp, pcs));
                weft_unwind(state.jmp_buf.get());
            }
        }
    }
    // Not ours: hand the signal to whoever had it before us.
    let index = SIGNALS.iter().position(|s| *s == signum).unwrap_or(0);
    // SAFETY: the previous handler was saved before ours was installed.
    unsafe {
        let prev = &*std::ptr::addr_of!(PREV_HANDLERS[index]).cast::<libc::sigaction>();
        if prev.sa_flags & libc::SA_SIGINFO != 0 && prev.sa_sigaction > 1 {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut c_void) =
                std::mem::transmute(prev.sa_sigaction);
            f(signum, info, context);
        } else if prev.sa_sigaction == libc::SIG_DFL || prev.sa_sigaction == libc::SIG_IGN {
            // Restore the default action; returning re-executes the faulting
            // instruction, which then terminates the process as usual.
            libc::sigaction(signum, prev, std::ptr::null_mut());
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(prev.sa_sigaction);
            f(signum);
        }
    }
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
unsafe fn pc_and_fp(context: *mut c_void) -> (usize, usize) {
    // SAFETY: caller passes the handler's ucontext.
    let cx = unsafe { &*context.cast::<libc::ucontext_t>() };
    (
        cx.uc_mcontext.gregs[libc::REG_RIP as usize] as usize,
        cx.uc_mcontext.gregs[libc::REG_RBP as usize] as usize,
    )
}

#[cfg(all(target_os = "linux", target_arch = "aarch64"))]
unsafe fn pc_and_fp(context: *mut c_void) -> (usize, usize) {
    // SAFETY: caller passes the handler's ucontext.
    let cx = unsafe { &*context.cast::<libc::ucontext_t>() };
    (cx.uc_mcontext.pc as usize, cx.uc_mcontext.regs[29] as usize)
}

/// This thread's chain of active calls into wasm, as an opaque value.
///
/// A fiber that suspends while wasm frames are on its stack takes its part of
/// the chain with it ([`replace_call_state`] with the value seen when the
/// fiber was entered) and puts it back when it resumes, possibly on another
/// thread, so that traps always find the call they belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallState(*const CallThreadState);

// SAFETY: a `CallState` is only an address; it is dereferenced only by the
// trap machinery of the thread it is installed on, while the states it
// points to (on a fiber's stack) are alive.
unsafe impl Send for CallState {}
// SAFETY: as for `Send`.
unsafe impl Sync for CallState {}

/// The current chain of this thread.
pub fn current_call_state() -> CallState {
    CallState(CURRENT.with(|c| c.get()))
}

#[doc(hidden)]
/// Installs `state` as this thread's chain and returns the previous one.
pub fn replace_call_state(state: CallState) -> CallState {
    CallState(CURRENT.with(|c| c.replace(state.0)))
}

/// What one stack knows of the wasm running on it: its part of the chain of
/// calls into wasm ([`CallState`]) and the store context's per-stack
/// fields (the stack limit, the last entry and exit frames, and the store
/// pointer that `invoke` set for the host functions its wasm calls: a
/// fiber suspended inside a call into wasm finds it again when resumed,
/// even where the resumer runs outside any call).
///
/// A scheduler that runs several wasm threads of one store on fibers keeps
/// one `StackState` per fiber and calls [`StackState::swap`] right before
/// resuming the fiber and right after it suspends or returns: the first swap
/// installs the fiber's state and keeps the resumer's, the second puts the
/// resumer's back and keeps the fiber's. A new fiber starts from
/// [`StackState::default`] (no wasm on it), so its first call into wasm sets
/// a stack limit within the fiber's own stack.
#[derive(Debug, Default)]
pub struct StackState {
    call: Option<CallState>,
    stack_limit: usize,
    exit_fp: usize,
    exit_pc: usize,
    entry_fp: usize,
    /// The store pointer of the calls into wasm on this stack (null when
    /// none runs).
    store_ptr: StorePtr,
}

/// A store pointer kept by a [`StackState`]: only handed back to the store
/// context it came from.
#[derive(Debug, Clone, Copy)]
struct StorePtr(*mut u8);

impl Default for StorePtr {
    fn default() -> Self {
        StorePtr(std::ptr::null_mut())
    }
}

// SAFETY: the pointer is never dereferenced through a `StackState`; it is
// only moved between a `VMStoreContext` and the state of a fiber of the
// same store, which moves with the store.
unsafe impl Send for StorePtr {}
// SAFETY: as for `Send`: nothing reads through it here.
unsafe impl Sync for StorePtr {}

impl StackState {
    #[doc(hidden)]
    /// Exchanges this state with the current one of this thread and `ctx`.
    pub fn swap(&mut self, ctx: &crate::VMStoreContext) {
        let call = self.call.unwrap_or(CallState(std::ptr::null()));
        self.call = Some(replace_call_state(call));
        self.stack_limit = ctx.stack_limit.replace(self.stack_limit);
        self.exit_fp = ctx.last_wasm_exit_fp.replace(self.exit_fp);
        self.exit_pc = ctx.last_wasm_exit_pc.replace(self.exit_pc);
        self.entry_fp = ctx.last_wasm_entry_fp.replace(self.entry_fp);
        self.store_ptr = StorePtr(ctx.store_ptr.replace(self.store_ptr.0));
    }
}
