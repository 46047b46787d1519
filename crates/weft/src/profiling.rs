//! `GuestProfiler`: samples of the wasm stack written in the Firefox
//! profiler's processed format, as Wasmtime's guest profiler does.

use crate::{AsContext, CallHook, Module, WasmBacktrace};
use fxprof_processed_profile::{
    CategoryHandle, CpuDelta, Frame, FrameFlags, FrameInfo, Profile, ReferenceTimestamp, SamplingInterval,
    ThreadHandle, Timestamp,
};
use std::io::Write;
use std::time::{Duration, Instant, SystemTime};

/// Collects samples of the wasm call stack of a store and writes them as a
/// profile for the Firefox profiler (<https://profiler.firefox.com>).
///
/// Sampling is the embedder's job: call [`GuestProfiler::sample`] from an
/// epoch deadline callback or from host functions, and
/// [`GuestProfiler::call_hook`] from the store's call hook, then
/// [`GuestProfiler::finish`] to write the profile.
///
/// Frames are named `module!function` from the name section (or
/// `wasm-function[N]`). Samples taken from an epoch callback see no frame
/// of the activation that was interrupted (Weft records no exit there; see
/// [`WasmBacktrace::capture`]), only those of outer activations.
pub struct GuestProfiler {
    profile: Profile,
    thread: ThreadHandle,
    start: Instant,
    /// The name given for the one module profiled, for frames of a module
    /// without a name section.
    default_module: Option<String>,
}

impl std::fmt::Debug for GuestProfiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuestProfiler").finish_non_exhaustive()
    }
}

impl GuestProfiler {
    /// A profiler for a program called `module_name`, sampled about every
    /// `interval`, running the given modules (named as the profile should
    /// show them when their name section gives none).
    pub fn new(module_name: &str, interval: Duration, modules: impl IntoIterator<Item = (String, Module)>) -> Self {
        let interval = SamplingInterval::from_nanos(u64::try_from(interval.as_nanos()).unwrap_or(u64::MAX));
        let mut profile = Profile::new(
            module_name,
            ReferenceTimestamp::from_system_time(SystemTime::now()),
            interval,
        );
        let pid = std::process::id();
        let process = profile.add_process(module_name, pid, Timestamp::from_nanos_since_reference(0));
        let thread = profile.add_thread(process, pid, Timestamp::from_nanos_since_reference(0), true);
        let modules: Vec<(String, Module)> = modules.into_iter().collect();
        let default_module = match modules.as_slice() {
            [(name, _)] => Some(name.clone()),
            _ => None,
        };
        GuestProfiler {
            profile,
            thread,
            start: Instant::now(),
            default_module,
        }
    }

    fn now(&self) -> Timestamp {
        Timestamp::from_nanos_since_reference(u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX))
    }

    /// Adds a sample of the wasm frames of `store` on the stack now, with
    /// `delta` the CPU time spent since the previous sample (zero is fine).
    pub fn sample(&mut self, store: impl AsContext, delta: Duration) {
        let backtrace = WasmBacktrace::capture(&store);
        let now = self.now();
        let mut frames = Vec::with_capacity(backtrace.frames().len());
        // The profile wants the stack outermost first.
        for frame in backtrace.frames().iter().rev() {
            let module = frame
                .module_name()
                .or(self.default_module.as_deref())
                .unwrap_or("<unknown>");
            let name = match frame.func_name() {
                Some(f) => format!("{module}!{f}"),
                None => format!("{module}!wasm-function[{}]", frame.func_index()),
            };
            let label = self.profile.intern_string(&name);
            frames.push(FrameInfo {
                frame: Frame::Label(label),
                category_pair: CategoryHandle::OTHER.into(),
                flags: FrameFlags::empty(),
            });
        }
        let stack = self.profile.intern_stack_frames(self.thread, frames.into_iter());
        let delta = CpuDelta::from_nanos(u64::try_from(delta.as_nanos()).unwrap_or(u64::MAX));
        self.profile.add_sample(self.thread, now, stack, delta, 1);
    }

    /// For the store's call hook: on a call from wasm into the host, adds a
    /// sample of the wasm stack (with no CPU time), so that host calls show
    /// in the profile. Wasmtime records host calls as markers instead.
    pub fn call_hook(&mut self, store: impl AsContext, kind: CallHook) {
        if kind == CallHook::CallingHost {
            self.sample(store, Duration::ZERO);
        }
    }

    /// Writes the profile, as the Firefox profiler's processed-format JSON.
    pub fn finish(self, output: impl Write) -> crate::Result<()> {
        serde_json::to_writer(output, &self.profile)
            .map_err(|e| crate::format_err!("failed to write the guest profile: {e}"))
    }
}
